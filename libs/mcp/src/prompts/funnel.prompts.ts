import { z } from 'zod';
import type { GetPromptResult, McpServer } from '@modelcontextprotocol/server';
import type { ChartSubtype, KpiSubtype } from '@app/metrics';

// Prompts are ready tasks a user picks from the host's menu: each turns its arguments into one
// request that tells the model which tools to call with which values. They read no data
// themselves, so they need no scope; the tools they name check theirs.

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

const funnelId = z.string().min(1).describe('The funnel (campaign) id; list_workspaces lists them');

const REVIEW_KPIS: KpiSubtype[] = [
  'kpi_total_sessions',
  'kpi_new_contacts',
  'kpi_conversion_rate',
  'kpi_completion_rate',
];
const REVIEW_CHARTS: ChartSubtype[] = [
  'chart_page_to_page_conversion_rate',
  'chart_contacts_over_time',
  'chart_top_utm_sources',
];

/** `YYYY-MM-DD` of a date `days` before the given one. */
const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10);
const today = () => new Date().toISOString().slice(0, 10);

const ask = (text: string): GetPromptResult => ({
  messages: [{ role: 'user', content: { type: 'text', text } }],
});

export function registerFunnelPrompts(server: McpServer): void {
  server.registerPrompt(
    'weekly_funnel_review',
    {
      title: "Review a funnel's week",
      description:
        "A funnel's seven days ending on weekEnding (default today) against the week before: " +
        'sessions, new contacts, conversion and completion, where visitors drop off and which sources bring them.',
      argsSchema: z.object({
        funnelId,
        weekEnding: z
          .string()
          .regex(ISO_DATE, 'weekEnding must be a date, YYYY-MM-DD')
          .optional()
          .describe('Last day of the week to review, YYYY-MM-DD (default today)'),
        timezone: z
          .string()
          .optional()
          .describe('IANA time zone the days are counted in, e.g. Europe/Berlin (default UTC)'),
      }),
    },
    ({ funnelId, weekEnding = today(), timezone }) => {
      const week = { from: daysBefore(weekEnding, 6), to: weekEnding };
      const before = { from: daysBefore(weekEnding, 13), to: daysBefore(weekEnding, 7) };
      const zone = timezone ? `, timezone "${timezone}"` : '';
      return ask(
        [
          `Review the week ${week.from} to ${week.to} of funnel ${funnelId} against the week before (${before.from} to ${before.to}).`,
          `1. Call get_funnel (funnelId "${funnelId}") for its name, pages and statuses.`,
          `2. For each week call get_kpi_metrics (funnelId "${funnelId}", from, to${zone}) with the subtypes ${REVIEW_KPIS.join(', ')}.`,
          `3. For this week call get_chart_metrics with the subtypes ${REVIEW_CHARTS.join(', ')}.`,
          'Then write a short review: each figure with its change against the week before, the page where most visitors ' +
            'leave, the sources that brought the most contacts, and two or three concrete things to try next week. ' +
            'Say plainly when a week has too few sessions to compare.',
        ].join('\n'),
      );
    },
  );

  server.registerPrompt(
    'stalled_leads',
    {
      title: 'Leads that stalled',
      description:
        'Contacts of a funnel nobody has touched for a number of days (default 7), optionally only those with one status, ' +
        'with a next step for each.',
      argsSchema: z.object({
        funnelId,
        days: z
          .string()
          .regex(/^\d{1,3}$/, 'days must be a whole number of days')
          .optional()
          .describe('How many days without a change make a lead stalled (default 7)'),
        status: z
          .string()
          .optional()
          .describe("Only contacts with this status (one of the funnel's statuses)"),
      }),
    },
    ({ funnelId, days = '7', status }) => {
      const cutoff = daysBefore(today(), Number(days));
      const onlyStatus = status ? `, status "${status}"` : '';
      return ask(
        [
          `Find the leads of funnel ${funnelId} that stalled: contacts${status ? ` with status "${status}"` : ''} not changed since ${cutoff} (${days} days).`,
          `1. Call get_funnel (funnelId "${funnelId}") for its statuses.`,
          `2. Call list_contacts (funnelId "${funnelId}"${onlyStatus}, sortField "updatedAt", sortOrder 1, limit 100) and follow meta.nextCursor ` +
            `while the last contact's updatedAt is before ${cutoff}; keep only contacts whose updatedAt is before ${cutoff}.`,
          'Then list them, longest untouched first: name or email, status, days since the last change, and one concrete next ' +
            'step for each (a reminder, a call, or closing the lead). End with how many stalled per status.',
        ].join('\n'),
      );
    },
  );
}
