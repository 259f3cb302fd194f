import { CONTACT_OBJECT_FIELDS, CONTACT_VALUE_FIELDS } from '@app/contacts';

// `{{firstName}}`, `{{ address.city }}`, `{{properties.plan}}`: a path into the contact JSON.
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

// The template reads the Contact JSON, so its paths are the members the contacts API presents.
const TOP_LEVEL = new Set<string>(CONTACT_VALUE_FIELDS);
const NESTED = new Set<string>(CONTACT_OBJECT_FIELDS);

/** The placeholders of a template that name no contact field (so a typo fails at creation). */
export function unknownPlaceholders(template: string): string[] {
  const unknown = [...template.matchAll(PLACEHOLDER)]
    .map((match) => match[1])
    .filter((path) => {
      const [root, key] = splitPath(path);
      return key === undefined ? !TOP_LEVEL.has(root) : !(NESTED.has(root) && key);
    });
  return [...new Set(unknown)];
}

/** Renders a template over the contact JSON; a field the contact does not have renders empty. */
export function renderTemplate(template: string, contact: Record<string, unknown>): string {
  return template.replace(PLACEHOLDER, (_, path: string) => valueAt(contact, path));
}

/**
 * Renders a template with the template's own text and the contact's values passed through
 * different functions (e.g. HTML: the text escaped and its links made anchors, values only
 * escaped, so a value can never become markup or a link).
 */
export function renderTemplateWith(
  template: string,
  contact: Record<string, unknown>,
  literal: (text: string) => string,
  value: (text: string) => string,
): string {
  let out = '';
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    out += literal(template.slice(last, match.index)) + value(valueAt(contact, match[1]));
    last = match.index + match[0].length;
  }
  return out + literal(template.slice(last));
}

function valueAt(contact: Record<string, unknown>, path: string): string {
  const [root, key] = splitPath(path);
  const node = contact[root];
  const value =
    key === undefined
      ? node
      : node && typeof node === 'object'
        ? (node as Record<string, unknown>)[key]
        : undefined;
  return value === undefined || value === null || typeof value === 'object' ? '' : String(value);
}

// Custom property names may contain dots, so only the first dot separates the path.
function splitPath(path: string): [string, string | undefined] {
  const dot = path.indexOf('.');
  return dot < 0 ? [path, undefined] : [path.slice(0, dot), path.slice(dot + 1)];
}
