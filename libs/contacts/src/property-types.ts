import { isIsoDate, MAX_PROPERTY_VALUE_LENGTH } from './contact-rules';
import type { PropertyValue } from './entities/contact.entity';
import type { PropertyType } from './entities/contact-property-definition.entity';

/** What a value is checked against: a property's type and, for an enum, its options. */
export interface PropertyTypeRule {
  type: PropertyType;
  options?: readonly string[] | null;
}

// A number as JSON writes one; its text form is accepted too ("42" for 42).
const NUMBER_TEXT = '^-?(0|[1-9][0-9]*)(\\.[0-9]+)?([eE][+-]?[0-9]+)?$';
const NUMBER = new RegExp(NUMBER_TEXT);

/**
 * The value a property stores for `raw`, or the problem with it, named by `label`. Without a
 * definition a property holds text, as it always did (a number or boolean as its text form);
 * with one, the value is stored as its type (a number as a JSON number, a date as YYYY-MM-DD).
 * Every door that writes a property (PUT values, PATCH, batch, MCP) comes through here.
 */
export function checkPropertyValue(
  raw: unknown,
  rule: PropertyTypeRule | undefined,
  label: string,
): { value: PropertyValue; problem?: undefined } | { problem: string } {
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return { problem: `${label} must be a string, a number or a boolean` };
  }
  const text = typeof raw === 'string' ? raw.trim() : String(raw);
  if (text.length > MAX_PROPERTY_VALUE_LENGTH) {
    return { problem: `${label} must be at most ${MAX_PROPERTY_VALUE_LENGTH} characters` };
  }
  switch (rule?.type ?? 'string') {
    case 'string':
      return { value: text };
    case 'number':
      return (typeof raw === 'number' && Number.isFinite(raw)) ||
        (typeof raw === 'string' && NUMBER.test(text))
        ? { value: Number(text) }
        : { problem: `${label} must be a number` };
    case 'boolean':
      return text === 'true' || text === 'false'
        ? { value: text === 'true' }
        : { problem: `${label} must be true or false` };
    case 'date':
      return typeof raw === 'string' && isIsoDate(text)
        ? { value: text }
        : { problem: `${label} must be a date in the form YYYY-MM-DD` };
    case 'enum': {
      const options = rule?.options ?? [];
      return options.includes(text)
        ? { value: text }
        : { problem: `${label} must be one of: ${options.join(', ')}` };
    }
  }
}

/**
 * The same rule over the values already stored, in SQL: holds for a stored value (`value`, a jsonb
 * expression) that checkPropertyValue accepts. `param` adds a parameter and answers its placeholder.
 */
export function propertyFitsSql(
  rule: PropertyTypeRule,
  value: string,
  param: (v: unknown) => string,
): string {
  const text = `(${value} #>> '{}')`;
  const scalar = `jsonb_typeof(${value}) IN ('string', 'number', 'boolean')`;
  switch (rule.type) {
    case 'string':
      return scalar;
    case 'number':
      return `(jsonb_typeof(${value}) = 'number' OR (jsonb_typeof(${value}) = 'string' AND ${text} ~ ${param(NUMBER_TEXT)}))`;
    case 'boolean':
      return `(${scalar} AND ${text} IN ('true', 'false'))`;
    case 'date':
      // iso_date_or_null (a migration's) answers as pg_input_is_valid, which PostgreSQL 15 lacks.
      return `(jsonb_typeof(${value}) = 'string' AND iso_date_or_null(${text}) IS NOT NULL)`;
    case 'enum':
      return `(${scalar} AND ${text} = ANY(${param(rule.options ?? [])}::text[]))`;
  }
}

/** A stored value that fits (propertyFitsSql) as checkPropertyValue would store it, in SQL. */
export function typedPropertySql(rule: PropertyTypeRule, value: string): string {
  const text = `(${value} #>> '{}')`;
  // to_jsonb as IMMUTABLE functions (a migration's): Citus refuses a STABLE one in an UPDATE.
  if (rule.type === 'number') return `jsonb_of_numeric(${text}::numeric)`;
  if (rule.type === 'boolean') return `jsonb_of_boolean(${text}::boolean)`;
  return `jsonb_of_text(${text})`;
}
