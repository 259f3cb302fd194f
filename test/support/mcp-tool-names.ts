/** Every tool the MCP endpoint lists, sorted: one list for the suites that check the whole set. */
export const MCP_TOOL_NAMES = [
  'create_contact',
  'delete_contact',
  'get_chart_metrics',
  'get_contact',
  'get_funnel',
  'get_insight_metrics',
  'get_kpi_metrics',
  'get_step_funnel',
  'list_contacts',
  'list_workspaces',
  'search_contacts',
  'show_funnel_dashboard',
  'update_contact',
  'update_contact_value',
  'upsert_contacts',
].sort();
