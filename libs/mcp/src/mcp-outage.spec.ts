import { OUTAGE_MARK, outageInstead, SERVICE_UNAVAILABLE_CODE } from './mcp-outage';

describe(outageInstead.name, () => {
  const marked = { jsonrpc: '2.0', id: 4, result: { isError: true, _meta: { [OUTAGE_MARK]: true } } };
  const fine = { jsonrpc: '2.0', id: 5, result: { content: [] } };

  it('replaces a marked result by the outage error with its id, in a batch too', () => {
    expect(outageInstead(marked)).toMatchObject({ id: 4, error: { code: SERVICE_UNAVAILABLE_CODE } });
    expect(outageInstead([fine, marked])).toEqual([fine, expect.objectContaining({ id: 4 })]);
  });

  it('leaves an answer without a marked result alone', () => {
    expect(outageInstead(fine)).toBeUndefined();
    expect(outageInstead(null)).toBeUndefined();
  });
});
