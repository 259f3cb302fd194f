import { WRITE_BATCH_SQL } from '../events/batch-writes';
import { INSERT_EVENTS_SQL, LOCK_FUNNEL_SQL, READ_SESSIONS_SQL } from '../events/event-store';
import type { MetricWindow, SessionFilter } from '../query/metric-query';
import { SAVE_MESSAGES_SQL } from '../events/message-store';
import { activitySql, eventSumsSql, messagesSql, timedPageViewsSql } from '../rollups/event-sums-sql';

import { localHourGrains, periodsOf } from '../rollups/read-plans';
import { sessionSumsSql } from '../rollups/session-sums-sql';
import { FOLDER_SQL } from '../segments/folder-sql';
import {
  FOLD_EVENT_SUMS_SQL,
  FOLD_SESSIONS_SQL,
  FOLD_STORED_ROWS_SQL,
  foldReplaceSql,
} from '../segments/segment-refold';
import { FOLD_STATE_SQL, planWindow } from '../segments/segment-state';
import { sessionsInBucketsSql, stepFunnelSql } from '../steps/step-funnel-reader';
import { SEGMENT_GRAINS } from '../time/buckets';
import { iso } from './epoch';
import { FixedOffsetZone, ianaZone } from '../time/time-zone';

// Every statement the metrics' read and write paths send, rendered from the code for sample
// inputs: `npm run sql:generate` writes them to libs/metrics/sql/*.sql (one file per family), and
// test/metrics-sql-files.e2e-spec.ts fails when the code renders something else, so each change of
// a statement shows in review as a change of its file. Windows are chosen to exercise every part
// a statement can have: whole buckets, subtracted buckets, raw edges, stale minutes.

/** One rendered statement: what it is for, its text and the parameters bound for the sample. */
export interface CatalogStatement {
  name: string;
  text: string;
  values: unknown[];
}

const FUNNEL = '00000000-0000-4000-8000-000000000001';
const T = Date.parse('2026-05-04T00:00:00Z');
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A three-day window cut 17 s past a minute at its start and 23.5 s before one at its end. */
const WINDOW: MetricWindow = {
  from: T + 9 * HOUR + 17_000,
  to: T + 3 * 24 * HOUR - 23_501,
  zone: new FixedOffsetZone(-330),
};
/** The same, in a named zone across a change of its offset. */
const DST_WINDOW: MetricWindow = {
  from: Date.parse('2026-03-28T00:00:00Z'),
  to: Date.parse('2026-03-30T00:00:00Z') - 1,
  zone: ianaZone('Europe/Berlin')!,
};
const FILTER: SessionFilter = { device: ['mobile'], utmSource: ['google', 'newsletter'] };
/** Folded up to an hour before the window's end, with two stale minutes inside it. */
const PLAN = planWindow(
  { foldedTo: WINDOW.to - HOUR - 13 * MINUTE + 1, stale: new Set([T + 30 * HOUR, T + 30 * HOUR + MINUTE]) },
  WINDOW.from,
  WINDOW.to + 1,
  SEGMENT_GRAINS,
);
const LABEL_PLAN = planWindow(
  { foldedTo: WINDOW.to + 1, stale: new Set() },
  WINDOW.from,
  WINDOW.to + 1,
  SEGMENT_GRAINS,
  { coarseOutside: false },
);
/** The same window with nothing folded yet: every minute raw. */
const RAW_PLAN = planWindow({ foldedTo: null, stale: new Set() }, WINDOW.from, WINDOW.to + 1, SEGMENT_GRAINS);
/** The window in a named zone across a change of its offset, folded: hour buckets only where they fit local hours. */
const DST_PLAN = planWindow(
  { foldedTo: DST_WINDOW.to + 1, stale: new Set() },
  DST_WINDOW.from,
  DST_WINDOW.to + 1,
  localHourGrains(SEGMENT_GRAINS, periodsOf(DST_WINDOW)),
);
const statement = (name: string, text: string, values: unknown[] = []): CatalogStatement => ({
  name,
  text,
  values,
});
const rendered = (name: string, s: { text: string; values: unknown[] }) => statement(name, s.text, s.values);

/** The statement families, each the statements of one file. */
export function statementCatalog(): Record<string, CatalogStatement[]> {
  return {
    'read-sessions': [
      rendered('KPI totals per segment', sessionSumsSql(FUNNEL, ['segment'], {}, PLAN)),
      rendered(
        'pages and answers (summed per combination at the edges)',
        sessionSumsSql(FUNNEL, ['page', 'answer:question_1', 'answer-group:question_1'], {}, PLAN),
      ),
      rendered('filtered totals per segment', sessionSumsSql(FUNNEL, ['segment'], FILTER, PLAN)),
      rendered('filtered pages, nothing folded yet', sessionSumsSql(FUNNEL, ['page'], FILTER, RAW_PLAN)),
    ],
    'read-events': [
      rendered('page views per page', eventSumsSql(FUNNEL, PLAN, 'page', {})),
      rendered('clicks per button, with the latest label', eventSumsSql(FUNNEL, LABEL_PLAN, 'button', {})),
      rendered('filtered page views', eventSumsSql(FUNNEL, PLAN, 'page', FILTER)),
      rendered('filtered clicks', eventSumsSql(FUNNEL, LABEL_PLAN, 'button', FILTER)),
      rendered('messages delivered and opened', messagesSql(FUNNEL, WINDOW)),
      rendered(
        'activity per local weekday-hour',
        activitySql(DST_PLAN, FUNNEL, periodsOf(DST_WINDOW), 'activity', {}),
      ),
      rendered(
        'filtered activity per local weekday-hour',
        activitySql(PLAN, FUNNEL, periodsOf(WINDOW), 'activity', FILTER),
      ),
      rendered('time on page per device', timedPageViewsSql(PLAN, FUNNEL, 'device', FILTER)),
    ],
    'read-plan': [statement("a funnel's fold state", FOLD_STATE_SQL, [FUNNEL])],
    'read-step-funnel': [
      rendered('sessions in the sample estimate', sessionsInBucketsSql(FUNNEL, WINDOW, FILTER, 8)),
      rendered(
        'a three-step funnel',
        stepFunnelSql(
          FUNNEL,
          WINDOW,
          [
            { kind: 'page', arg: 'start', name: 'page:start' },
            { kind: 'click', arg: 'cta', name: 'click:cta' },
            { kind: 'conversion', arg: null, name: 'conversion' },
          ],
          7 * 24 * HOUR,
          FILTER,
          64,
        ),
      ),
    ],
    'write-ingestion': [
      statement('store the new events', INSERT_EVENTS_SQL),
      statement("the funnel's turn", LOCK_FUNNEL_SQL),
      statement('the stored sessions of a batch', READ_SESSIONS_SQL),
      statement('sessions, changes, step summaries and question titles of a batch', WRITE_BATCH_SQL),
      statement('messages delivered and opened, and their rollups', SAVE_MESSAGES_SQL),
    ],
    'write-fold': [
      ...Object.entries(FOLDER_SQL).map(([name, text]) => statement(`folder: ${name}`, text)),
      statement('chunk: the sessions started in its minutes', FOLD_SESSIONS_SQL),
      statement('chunk: the counted events of its minutes, with their sessions', FOLD_EVENT_SUMS_SQL),
      statement('chunk: stored finer rows of its coarser buckets', FOLD_STORED_ROWS_SQL),
      statement('chunk: its rows written (two documents)', foldReplaceSql(2)),
    ],
  };
}

/** A statement as its file shows it: a comment naming it and its sample parameters, then its text. */
function renderStatement(s: CatalogStatement): string {
  const text = s.text
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim())
    .join('\n');
  const params = s.values.map(
    (v, i) => `--   $${i + 1} = ${JSON.stringify(v instanceof Date ? iso(+v) : v)}`,
  );
  return [`-- ${s.name}`, ...params, `${text};`].join('\n');
}

/** The contents of each family's file (name → text). */
export function statementFiles(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(statementCatalog()).map(([family, statements]) => [
      `${family}.sql`,
      `-- Generated by \`npm run sql:generate\` from libs/metrics: do not edit.\n\n${statements
        .map(renderStatement)
        .join('\n\n')}\n`,
    ]),
  );
}
