import { LongWorkBusyError, TenantBudget } from './tenant-budget';

describe(TenantBudget.name, () => {
  it('refuses a tenant its third place with 429 and retryAfter while others still get theirs', () => {
    const budget = new TenantBudget(2, 4);
    budget.take('a');
    budget.take('a');
    const refusal = (() => {
      try {
        budget.take('a');
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(LongWorkBusyError);
    expect((refusal as LongWorkBusyError).toBody()).toEqual({
      error: expect.stringMatching(/at most 2 per company/),
      status: 429,
      retryAfter: 2,
    });
    expect(() => budget.take('b')).not.toThrow();
    expect(budget.inUse).toBe(3);
  });

  it('refuses everyone once every place is taken', () => {
    const budget = new TenantBudget(2, 3);
    budget.take('a');
    budget.take('a');
    budget.take('b');
    expect(() => budget.take('c')).toThrow(/busy/);
  });

  it('gives a place back once, however often it is given back', () => {
    const budget = new TenantBudget(1, 2);
    const giveBack = budget.take('a');
    giveBack();
    giveBack();
    expect(budget.inUse).toBe(0);
    budget.take('a');
    budget.take('b');
    expect(() => budget.take('a')).toThrow(LongWorkBusyError);
    expect(budget.inUse).toBe(2);
  });
});
