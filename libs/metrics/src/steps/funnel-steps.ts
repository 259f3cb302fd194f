import { QUESTION_ID, SLUG } from '../events/event-readers';
import { MAX_PERIOD_DAYS } from '../query/metric-query';

/**
 * The steps a step funnel may ask for, declared once: the event that reaches each and what of it
 * must match the step's argument (its `key` column: a page's slug, a button's id; or the question
 * of an answer). Parsing, the documentation and the SQL derive from this table.
 */
export const STEP_KINDS = {
  page: { type: 'page_view', match: 'key', arg: SLUG, form: 'page:<slug>' },
  click: { type: 'button_click', match: 'key', arg: /^[^,]{1,200}$/, form: 'click:<buttonId>' },
  answer: { type: 'answer', match: 'question', arg: QUESTION_ID, form: 'answer:question_<n>' },
  conversion: { type: 'conversion', form: 'conversion' },
  completion: { type: 'completion', form: 'completion' },
} as const satisfies Record<string, { type: string; match?: 'key' | 'question'; arg?: RegExp; form: string }>;

export type StepKind = keyof typeof STEP_KINDS;

export interface FunnelStep {
  /** As asked, e.g. `page:welcome`. */
  name: string;
  kind: StepKind;
  arg: string | null;
}

export const MIN_STEPS = 2;
export const MAX_STEPS = 10;
export const STEP_FORMS = Object.values(STEP_KINDS).map((k) => k.form);

const STEPS_PROBLEM = `steps must list ${MIN_STEPS} to ${MAX_STEPS} steps, separated by commas, each one of ${STEP_FORMS.join(', ')}`;
const WITHIN_PROBLEM = `within must be an ISO 8601 duration of weeks, days, hours, minutes and seconds (e.g. P7D, PT30M), longer than 0 and at most ${MAX_PERIOD_DAYS} days`;

/** `page:welcome,page:quiz,conversion` (or the list) → the steps; problems are added to `problems`. */
export function parseSteps(raw: unknown, problems: string[]): FunnelStep[] {
  if (raw === undefined || raw === '') {
    problems.push('steps is required');
    return [];
  }
  const parts = (Array.isArray(raw) ? raw : [raw]).flatMap((p) =>
    typeof p === 'string' ? p.split(',') : [p],
  );
  const steps: FunnelStep[] = [];
  for (const part of parts) {
    const step = typeof part === 'string' ? parseStep(part.trim()) : undefined;
    if (!step) {
      problems.push(`${STEPS_PROBLEM}: ${JSON.stringify(part)} is not a step`);
      return [];
    }
    steps.push(step);
  }
  if (steps.length < MIN_STEPS || steps.length > MAX_STEPS)
    problems.push(`${STEPS_PROBLEM}: ${steps.length} given`);
  return steps;
}

function parseStep(text: string): FunnelStep | undefined {
  const colon = text.indexOf(':');
  const kind = (colon < 0 ? text : text.slice(0, colon)) as StepKind;
  const declared = Object.hasOwn(STEP_KINDS, kind) ? STEP_KINDS[kind] : undefined;
  if (!declared) return undefined;
  if (!('arg' in declared)) return colon < 0 ? { name: text, kind, arg: null } : undefined;
  const arg = colon < 0 ? '' : text.slice(colon + 1);
  return declared.arg.test(arg) ? { name: text, kind, arg } : undefined;
}

const DURATION =
  /^P(?:(\d{1,6})W)?(?:(\d{1,6})D)?(?:T(?=\d)(?:(\d{1,8})H)?(?:(\d{1,10})M)?(?:(\d{1,12}(?:\.\d{1,3})?)S)?)?$/;

/** An ISO 8601 duration of weeks, days, hours, minutes and seconds in ms, or undefined. */
export function parseWithin(raw: unknown, problems: string[]): number | undefined {
  if (raw === undefined) return undefined;
  const match = typeof raw === 'string' ? DURATION.exec(raw.trim()) : null;
  if (!match || raw === 'P' || (raw as string).endsWith('T')) {
    problems.push(WITHIN_PROBLEM);
    return undefined;
  }
  const [w, d, h, m, s] = match.slice(1).map((v) => Number(v ?? 0));
  const ms = Math.round(((((w * 7 + d) * 24 + h) * 60 + m) * 60 + s) * 1000);
  if (ms <= 0 || ms > MAX_PERIOD_DAYS * 86_400_000) {
    problems.push(WITHIN_PROBLEM);
    return undefined;
  }
  return ms;
}

export const EXACT_PROBLEM = 'exact must be true or false';

/** `exact` as a query string or a boolean (MCP); problems are added to `problems`. */
export function parseExact(raw: unknown, problems: string[]): boolean {
  if (raw === undefined || raw === false || raw === 'false') return false;
  if (raw === true || raw === 'true') return true;
  problems.push(EXACT_PROBLEM);
  return false;
}
