import { ValidationError } from '@app/core';
import {
  CUSTOM_PROPERTY_NAME,
  isReservedFieldName,
  MAX_CUSTOM_PROPERTY_NAME_LENGTH,
  STANDARD_FIELDS,
} from './contact-rules';
import {
  MAX_PROPERTY_DESCRIPTION_LENGTH,
  MAX_PROPERTY_LABEL_LENGTH,
  PROPERTY_TYPES,
  PropertyType,
} from './entities/contact-property-definition.entity';

export const MAX_ENUM_OPTIONS = 100;
export const MAX_ENUM_OPTION_LENGTH = 200;

/** The body of POST …/properties (PATCH takes the same members but `name`, all optional). */
export interface PropertyDefinitionInput {
  name?: string;
  type?: PropertyType;
  options?: string[] | null;
  unique?: boolean;
  label?: string | null;
  description?: string | null;
}

export interface PropertyDefinitionFields {
  type: PropertyType;
  options: string[] | null;
  unique: boolean;
  label: string | null;
  description: string | null;
}

const ALLOWED = new Set(['name', 'type', 'options', 'unique', 'label', 'description']);
const STANDARD_LOWER = new Set<string>(STANDARD_FIELDS.map((f) => f.toLowerCase()));

/** The problem with a custom property name, if any (the rules of PUT …/values). */
export function propertyNameProblem(name: string): string | undefined {
  if (isReservedFieldName(name)) return `${name} is a reserved system field`;
  if (STANDARD_LOWER.has(name.toLowerCase()) || name.toLowerCase() === 'zip') {
    return `${name} is a standard field, not a custom property`;
  }
  if (!CUSTOM_PROPERTY_NAME.test(name)) {
    return `name must be 1 to ${MAX_CUSTOM_PROPERTY_NAME_LENGTH} letters, digits, _, - or .`;
  }
  return undefined;
}

/**
 * Checks a definition (`current` absent: a new one, whose name and type are required) or a change
 * of one (members left out keep their value) and returns the resulting fields.
 */
export function validatePropertyDefinition(
  input: unknown,
  current?: PropertyDefinitionFields,
): { name?: string; fields: PropertyDefinitionFields } {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ValidationError('the request body must be a JSON object');
  }
  const body = input as Record<string, unknown>;
  const problems: string[] = [];
  for (const key of Object.keys(body)) {
    if (!ALLOWED.has(key) || (current && key === 'name')) {
      problems.push(
        current && key === 'name' ? 'name cannot be changed' : `${key} is not a recognised field`,
      );
    }
  }
  let name: string | undefined;
  if (!current) {
    if (typeof body.name !== 'string' || !body.name) problems.push('name is required');
    else {
      const problem = propertyNameProblem(body.name);
      if (problem) problems.push(problem);
      else name = body.name;
    }
  }
  const fields: PropertyDefinitionFields = current
    ? { ...current }
    : { type: 'string', options: null, unique: false, label: null, description: null };
  if (body.type !== undefined) {
    if (!(PROPERTY_TYPES as readonly unknown[]).includes(body.type)) {
      problems.push(`type must be one of: ${PROPERTY_TYPES.join(', ')}`);
    } else fields.type = body.type as PropertyType;
  } else if (!current) problems.push('type is required');
  if (body.options !== undefined) {
    const options = body.options;
    if (options === null) fields.options = null;
    else if (
      !Array.isArray(options) ||
      !options.length ||
      options.length > MAX_ENUM_OPTIONS ||
      options.some((o) => typeof o !== 'string' || !o.trim() || o.length > MAX_ENUM_OPTION_LENGTH) ||
      new Set(options).size !== options.length
    ) {
      problems.push(
        `options must be 1 to ${MAX_ENUM_OPTIONS} distinct non-empty strings of at most ${MAX_ENUM_OPTION_LENGTH} characters`,
      );
    } else fields.options = (options as string[]).map((o) => o.trim());
  }
  if (fields.type === 'enum' && !fields.options) problems.push('options are required for an enum property');
  if (fields.type !== 'enum' && body.options !== undefined && body.options !== null) {
    problems.push('options are only for an enum property');
  }
  if (fields.type !== 'enum') fields.options = null;
  if (body.unique !== undefined) {
    if (typeof body.unique !== 'boolean') problems.push('unique must be a boolean');
    else fields.unique = body.unique;
  }
  if (fields.unique && fields.type === 'boolean') problems.push('a boolean property cannot be unique');
  const text = (key: 'label' | 'description', max: number) => {
    const value = body[key];
    if (value === undefined) return;
    if (value === null) fields[key] = null;
    else if (typeof value !== 'string' || value.length > max) {
      problems.push(`${key} must be a string of at most ${max} characters`);
    } else fields[key] = value.trim() || null;
  };
  text('label', MAX_PROPERTY_LABEL_LENGTH);
  text('description', MAX_PROPERTY_DESCRIPTION_LENGTH);
  if (problems.length) throw new ValidationError(problems[0], problems);
  return { name, fields };
}
