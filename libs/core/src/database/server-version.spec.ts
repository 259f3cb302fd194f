import { serverVersionProblem } from './server-version';

describe('serverVersionProblem', () => {
  it('accepts PostgreSQL 15 and later', () => {
    expect(serverVersionProblem(150020, '15.20')).toBeUndefined();
    expect(serverVersionProblem(170002, '17.2')).toBeUndefined();
  });
  it('refuses an older server, naming its version and the minimum', () => {
    expect(serverVersionProblem(140011, '14.11')).toBe(
      'PostgreSQL 14.11 is too old: this service needs PostgreSQL 15 or later',
    );
  });
});
