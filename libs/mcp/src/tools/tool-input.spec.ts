import { z } from 'zod';
import { hostSafeJsonSchema, toolInput } from './tool-input';

const listed = (shape: z.ZodRawShape) =>
  toolInput(shape)['~standard'].jsonSchema.input({ target: 'draft-2020-12' });

describe(hostSafeJsonSchema.name, () => {
  it('splits a type list into anyOf, each branch with the keywords of its type', () => {
    expect(
      hostSafeJsonSchema({ description: 'd', type: ['string', 'null'], maxLength: 5, default: null }),
    ).toEqual({
      description: 'd',
      default: null,
      anyOf: [{ type: 'string', maxLength: 5 }, { type: 'null' }],
    });
  });

  it('drops $schema, a record’s propertyNames and zod’s safe-integer bounds, deep inside too', () => {
    expect(
      listed({
        page: z.number().int(),
        items: z.array(z.object({ tags: z.record(z.string(), z.string().nullable()) })),
      }),
    ).toEqual({
      type: 'object',
      properties: {
        page: { type: 'integer' },
        items: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              tags: {
                type: 'object',
                additionalProperties: { anyOf: [{ type: 'string' }, { type: 'null' }] },
              },
            },
            required: ['tags'],
          },
        },
      },
      required: ['page', 'items'],
      additionalProperties: false,
    });
  });

  it('keeps a propertyNames that says more than "a string"', () => {
    expect(hostSafeJsonSchema({ type: 'object', propertyNames: { type: 'string', pattern: '^a' } })).toEqual({
      type: 'object',
      propertyNames: { type: 'string', pattern: '^a' },
    });
  });
});

describe(toolInput.name, () => {
  it('refuses an argument the tool does not take, naming it, and keeps zod’s defaults', async () => {
    const input = toolInput({ limit: z.number().default(50) })['~standard'];
    expect(await input.validate({})).toEqual({ value: { limit: 50 } });
    const refused = await input.validate({ limt: 10 });
    expect(refused.issues?.map((issue) => issue.message)).toEqual([expect.stringContaining('"limt"')]);
  });
});
