import { SingleBar, Presets } from 'cli-progress';
import { Client } from 'pg';
import { generateKey } from '@app/auth';

export interface HttpBenchData {
  companyId: string;
  funnelId: string;
  /** An empty funnel of the same company, where contacts are created and events sent. */
  otherFunnelId: string;
  key: string;
  /** Contacts the write routes update, spread over the funnel. */
  contactIds: string[];
}

const BATCH = 10_000;
const WORKSPACES = 3;
const FUNNELS_PER_WORKSPACE = 3;

/**
 * One company with three workspaces of three funnels; the first funnel holds `contacts` contacts
 * (names, addresses, UTM parameters and meta like funnel traffic leaves), one in ten with one or
 * two messages. Loaded with set-based SQL under a progress bar.
 */
export async function buildHttpBenchData(url: string, contacts: number): Promise<HttpBenchData> {
  const db = new Client({ connectionString: url });
  await db.connect();
  try {
    const one = async <T>(sql: string, values: unknown[] = []) => (await db.query(sql, values)).rows[0] as T;
    const { id: companyId } = await one<{ id: string }>(
      `INSERT INTO companies (name, subscription_id) VALUES ('Bench', 'sub_bench') RETURNING id`,
    );
    const funnelIds: string[] = [];
    for (let w = 0; w < WORKSPACES; w++) {
      const { id: workspaceId } = await one<{ id: string }>(
        `INSERT INTO workspaces (company_id, name) VALUES ($1, $2) RETURNING id`,
        [companyId, `Workspace ${w + 1}`],
      );
      for (let f = 0; f < FUNNELS_PER_WORKSPACE; f++) {
        const { id } = await one<{ id: string }>(
          `INSERT INTO funnels (workspace_id, company_id, name, status) VALUES ($1, $2, $3, 'online') RETURNING id`,
          [workspaceId, companyId, `Funnel ${w + 1}.${f + 1}`],
        );
        funnelIds.push(id);
      }
    }
    const key = generateKey();
    await db.query(
      `INSERT INTO api_keys (company_id, name, prefix, key_hash, permissions)
       VALUES ($1, 'bench', $2, $3, '{crm:read,crm:write,metrics:read,events:write}')`,
      [companyId, key.prefix, key.hash],
    );

    const funnelId = funnelIds[0];
    const bar = new SingleBar(
      {
        format: 'building the data set [{bar}] {value}/{total} contacts, {eta}s left',
        noTTYOutput: true,
        notTTYSchedule: 5000,
      },
      Presets.shades_classic,
    );
    bar.start(contacts, 0);
    for (let start = 0; start < contacts; start += BATCH) {
      const size = Math.min(BATCH, contacts - start);
      await db.query(
        `INSERT INTO contacts (funnel_id, company_id, status, email, phone, first_name, last_name, city,
                               country, postal_code, street, house_number, converted_at, meta, utm_params, properties)
         SELECT $1, $2, (ARRAY['lead','converted'])[1 + (i % 2)],
                CASE WHEN i % 33 = 0 THEN NULL ELSE 'c' || i || '@example.com' END,
                CASE WHEN i % 3 = 0 THEN '+49151' || lpad(i::text, 7, '0') END,
                (ARRAY['Anna','Ben','Clara','David','Emma','Felix','Greta','Jonas'])[1 + (i * 7) % 8],
                CASE WHEN i % 17 <> 0 THEN (ARRAY['Müller','Schmidt','Fischer','Weber','Meyer'])[1 + (i * 13) % 5] END,
                'Berlin', 'Germany', lpad((10000 + i % 90000)::text, 5, '0'), 'Invalidenstraße', (1 + i % 200)::text,
                CASE WHEN i % 50 <> 0 THEN timestamptz '2026-01-01' + (i % 31536000) * interval '1 second' END,
                jsonb_build_object('ps_source', 'funnel', 'ps_timezone', 'Europe/Berlin',
                                   'ps_first_seen_at', '2025-12-31T10:00:00.000Z', 'ps_email_verified', i % 4 = 0),
                CASE WHEN i % 2 = 0 THEN '{"utm_source":"google","utm_medium":"cpc","utm_campaign":"autumn"}'::jsonb
                     ELSE '{}'::jsonb END,
                CASE WHEN i % 5 = 0 THEN jsonb_build_object('score', i % 100, 'newsletter', 'yes') ELSE '{}'::jsonb END
         FROM generate_series($3::int, $3::int + $4::int - 1) AS i`,
        [funnelId, companyId, start, size],
      );
      bar.update(start + size);
    }
    bar.stop();
    await db.query(
      `INSERT INTO contact_messages (contact_id, funnel_id, name, type, subject, content, created_at)
       SELECT c.id, c.funnel_id, 'Welcome ' || m, CASE WHEN m = 1 THEN 'email' ELSE 'sms' END,
              CASE WHEN m = 1 THEN 'Welcome' END, 'Hello ' || coalesce(c.first_name, 'there') || ', thanks!',
              c.created_at + m * interval '1 minute'
       FROM contacts c CROSS JOIN generate_series(1, 2) AS m
       WHERE c.funnel_id = $1 AND (hashtext(c.id::text) % 10 = 0) AND (m = 1 OR hashtext(c.id::text) % 20 = 0)`,
      [funnelId],
    );
    const { rows } = await db.query<{ id: string }>(
      `SELECT id FROM contacts WHERE funnel_id = $1 ORDER BY id LIMIT 1000`,
      [funnelId],
    );
    await db.query('VACUUM ANALYZE');
    await db.query('CHECKPOINT');
    return {
      companyId,
      funnelId,
      otherFunnelId: funnelIds[1],
      key: key.key,
      contactIds: rows.map((r) => r.id),
    };
  } finally {
    await db.end();
  }
}
