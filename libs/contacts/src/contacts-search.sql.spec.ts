import { validateSearch } from './contacts-search.query';
import { listFilterGroups, whereConditions } from './contacts-search.sql';

const compile = (where: Parameters<typeof whereConditions>[0], funnel?: string) => {
  const params: unknown[] = [];
  const conditions = whereConditions(where, (value) => `$${params.push(value)}`, funnel);
  return { conditions, params };
};

describe('contacts search SQL', () => {
  it("compiles the list's filters to the list's conditions, in the list's order", () => {
    const updatedAfter = new Date('2026-01-01T00:00:00Z');
    const { conditions, params } = compile({
      emailLower: 'ada@example.com',
      phoneDigits: '49151',
      status: 'lead',
      updatedAfter,
    });
    expect(conditions).toEqual([
      'lower(email) = $1',
      "regexp_replace(phone, '\\D', '', 'g') = $2",
      'status = $3',
      'updated_at > $4',
    ]);
    expect(params).toEqual(['ada@example.com', '49151', 'lead', updatedAfter]);
    expect(listFilterGroups({})).toEqual([]);
  });

  it('ANDs the filters of one group and ORs several groups as one condition', () => {
    const one = validateSearch({
      filterGroups: [
        {
          filters: [
            { field: 'email', operator: 'starts_with', value: 'A_b' },
            { field: 'properties.plan', operator: 'eq', value: 'pro' },
          ],
        },
      ],
    });
    expect(compile(one.groups)).toEqual({
      conditions: ['lower(email) LIKE $1', 'properties @> $2::jsonb'],
      params: ['a\\_b%', '{"plan":"pro"}'],
    });
    const two = validateSearch({
      filterGroups: [
        { filters: [{ field: 'meta.ps_embed', operator: 'eq', value: true }] },
        { filters: [{ field: 'address.city', operator: 'not_exists' }] },
      ],
    });
    expect(compile(two.groups).conditions).toEqual([
      "((meta->'ps_embed' = to_jsonb($1::boolean)) OR (city IS NULL))",
    ]);
  });

  const typedRanges = {
    filterGroups: [
      {
        filters: [
          { field: 'properties.score', operator: 'gte', value: 50 },
          { field: 'properties.renewal', operator: 'lt', value: '2027-01-01' },
        ],
      },
    ],
  };
  const typedProperties = new Map([
    ['score', 'number'],
    ['renewal', 'date'],
  ] as const);

  it('compares a range of a number or date property in its complete copy, of the same funnel and generation', () => {
    const g1 = '00000000-0000-4000-8000-000000000001';
    const g2 = '00000000-0000-4000-8000-000000000002';
    const copies = new Map([
      ['score', g1],
      ['renewal', g2],
    ]);
    const query = validateSearch(typedRanges, typedProperties, copies);
    expect(compile(query.groups, '$9')).toEqual({
      conditions: [
        "id = ANY(ARRAY(SELECT v.contact_id FROM contact_property_values v WHERE v.funnel_id = $9 AND v.property_name = 'score' AND v.generation = $1::uuid AND v.number_value >= $2))",
        "id = ANY(ARRAY(SELECT v.contact_id FROM contact_property_values v WHERE v.funnel_id = $9 AND v.property_name = 'renewal' AND v.generation = $3::uuid AND v.date_value < $4))",
      ],
      params: [g1, 50, g2, '2027-01-01'],
    });
    // Without the funnel's placeholder, the same values by the row's own funnel and id.
    expect(compile(query.groups).conditions[0]).toBe(
      "(funnel_id, id) IN (SELECT v.funnel_id, v.contact_id FROM contact_property_values v WHERE v.property_name = 'score' AND v.generation = $1::uuid AND v.number_value >= $2)",
    );
  });

  it('compares a range of a number or date property whose copy is not complete over properties, converted alike', () => {
    const query = validateSearch(typedRanges, typedProperties);
    expect(compile(query.groups, '$9')).toEqual({
      conditions: [
        "contact_property_number('number', properties->'score') >= $1",
        "contact_property_date('date', properties->'renewal') < $2",
      ],
      params: [50, '2027-01-01'],
    });
  });

  it('compares a range of an untyped property as text', () => {
    const query = validateSearch({
      filterGroups: [{ filters: [{ field: 'properties.score', operator: 'gte', value: '50' }] }],
    });
    expect(compile(query.groups).conditions).toEqual(["properties->>'score' >= $1"]);
  });
});
