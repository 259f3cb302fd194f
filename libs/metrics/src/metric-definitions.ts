/** The chart, KPI and insight definitions (product decisions §6), with the text Swagger shows. */

export const CHART_SUBTYPES = [
  'chart_page_to_page_conversion_rate',
  'chart_activity_by_daytime',
  'chart_contacts_over_time',
  'chart_visitor_devices',
  'chart_top_utm_sources',
  'chart_time_on_page',
  'chart_button_clicks',
] as const;
export type ChartSubtype = (typeof CHART_SUBTYPES)[number];

export const KPI_SUBTYPES = [
  'kpi_total_sessions',
  'kpi_new_contacts',
  'kpi_conversion_rate',
  'kpi_completion_rate',
  'kpi_average_time_on_page',
  'kpi_time_to_completion',
  'kpi_messages_sent',
  'kpi_messages_delivery_rate',
  'kpi_messages_open_rate',
] as const;
export type KpiSubtype = (typeof KPI_SUBTYPES)[number];

export const CHART_DESCRIPTIONS: Record<ChartSubtype, string> = {
  chart_page_to_page_conversion_rate:
    'One point per funnel page in funnel order: key = slug, name = title, value = sessions (started in the period) that viewed the page, relativeValue = value ÷ previous page value (first page 1; 0 when the previous is 0). `abTest` filters sessions by their abVariant (all = no filter).',
  chart_activity_by_daytime:
    'Always 168 points, Monday 00:00 first: key `D-HH` (D = ISO weekday 1 Monday … 7 Sunday, HH = local hour 00–23), name like `Monday 09:00`, value = page views in that local weekday-hour.',
  chart_contacts_over_time:
    'Daily points (key `YYYY-MM-DD`) when the period is at most 93 days, else monthly (`YYYY-MM`), in local time; value = contacts whose meta.ps_converted_at falls in the slot and the period. Every slot is present, zeros included.',
  chart_visitor_devices:
    'Always mobile, desktop, tablet, other (in that order): value = sessions started in the period on that device, relativeValue = value ÷ all sessions (0 when there are none).',
  chart_top_utm_sources:
    'The 10 utm.source values with the most sessions, descending (ties by key): value = sessions, relativeValue = value ÷ sessions that have a source.',
  chart_time_on_page:
    'One point per funnel page in funnel order: key = slug, name = title, value = mean timeOnPageMs ÷ 1000 (seconds, 2 decimals) over the page views in the period that reported it; 0 when none.',
  chart_button_clicks:
    'One point per button clicked in the period, most clicks first (ties by key): key = buttonId, name = latest buttonLabel in the period (the buttonId when none), value = clicks.',
};

export const KPI_DESCRIPTIONS: Record<KpiSubtype, string> = {
  kpi_total_sessions: 'Sessions (session_start events) in the period.',
  kpi_new_contacts: 'Contacts whose meta.ps_converted_at falls in the period.',
  kpi_conversion_rate:
    'Sessions started in the period that have a `conversion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
  kpi_completion_rate:
    'Sessions started in the period that have a `completion` ÷ those sessions × 100 (percent, 2 decimals); count = sessions.',
  kpi_average_time_on_page:
    'Mean timeOnPageMs ÷ 1000 (seconds, 2 decimals) over the page views in the period that reported it; count = those page views.',
  kpi_time_to_completion:
    'Mean seconds (2 decimals) from session_start to the first completion, over sessions started in the period that completed; count = those sessions.',
  kpi_messages_sent: 'Contact messages sent (created) in the period.',
  kpi_messages_delivery_rate:
    'Messages sent in the period with a message_delivered (or message_opened) event ÷ messages sent in the period × 100; count = messages sent.',
  kpi_messages_open_rate:
    'Messages sent in the period with a message_opened event ÷ those delivered × 100; count = messages delivered.',
};

export const INSIGHT_DESCRIPTION =
  'Answers to one question (`question_<n>`): title = the latest questionTitle; answers = how many sessions (started in the period) chose each answer, counting each session’s latest answer to the question; groupedAnswers = the same per combination of answers, joined by "; " in the order given. Most frequent first.';

/** `kpi_conversion_rate` → `kpiConversionRate`. */
export const kpiType = (subtype: KpiSubtype) =>
  subtype.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
