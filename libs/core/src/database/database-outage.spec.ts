import { DatabaseError } from 'pg';
import { QueryFailedError, QueryRunnerAlreadyReleasedError } from 'typeorm';
import { isDatabaseUnavailable } from './database-outage';

const pgError = (code: string, message = 'error') =>
  Object.assign(new DatabaseError(message, 0, 'error'), { code });
const wrapped = (driverError: Error) => new QueryFailedError('SELECT 1', [], driverError);

describe(isDatabaseUnavailable.name, () => {
  it.each([
    ['too many connections', pgError('53300', 'sorry, too many clients already')],
    ['admin shutdown', pgError('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown', pgError('57P02')],
    ['cannot connect now (starting up, recovery)', pgError('57P03', 'the database system is starting up')],
    ['statement timeout', pgError('57014', 'canceling statement due to statement timeout')],
    ['read-only after a failover', pgError('25006', 'cannot execute INSERT in a read-only transaction')],
    ['a connection exception', pgError('08006')],
    [
      'connection refused',
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    ],
    ['a lost connection', new Error('Connection terminated unexpectedly')],
    ['a pool acquire timeout', new Error('timeout exceeded when trying to connect')],
    ['a wrapped admin shutdown', wrapped(pgError('57P01'))],
    ['a transaction whose connection the server ended', new QueryRunnerAlreadyReleasedError()],
  ])('says yes for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it.each([
    ['a unique violation', wrapped(pgError('23505', 'duplicate key value'))],
    ['an undefined table', wrapped(pgError('42P01', 'relation "contacts_gone" does not exist'))],
    ['a programming error', new TypeError('x is not a function')],
    ['nothing', undefined],
  ])('says no for %s', (_name, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });
});
