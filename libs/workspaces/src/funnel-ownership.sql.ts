import { escapeLiteral } from 'pg';

/**
 * The tenant check of a funnel as a query of its own, for callers that must run it inside a
 * statement batch of theirs (event ingestion sends it with BEGIN in one round trip): one row when
 * the funnel exists and, with a company, belongs to it; none otherwise. The ids are checked UUIDs
 * of the caller, escaped all the same, since a simple query takes no parameters.
 */
export function funnelOwnershipSql(funnelId: string, companyId: string | null): string {
  const company = companyId === null ? 'NULL' : escapeLiteral(companyId);
  return `SELECT 1 FROM funnels
    WHERE id = ${escapeLiteral(funnelId)}::uuid AND (${company}::uuid IS NULL OR company_id = ${company}::uuid)`;
}
