/** A node of an `EXPLAIN (ANALYZE, FORMAT JSON)` plan, with the members the plan checks read. */
export interface PlanNode {
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}

/** Rows a plan read from the table: returned by its scans plus those their filters threw away. */
export function rowsRead(node: PlanNode, table: string): number {
  const own =
    node['Relation Name'] === table
      ? (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) +
        (node['Rows Removed by Filter'] ?? 0) +
        (node['Rows Removed by Index Recheck'] ?? 0)
      : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child, table), 0);
}
