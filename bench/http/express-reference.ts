/**
 * The reference of `npm run bench:http`: a minimal express 5 + pg server for the read routes,
 * written the straightforward way: one query per lookup (the key by prefix and a SHA-256 compare,
 * the funnel by id and company, the kept total, the page's ids, its contacts, their messages), the
 * same presenter, so the bodies are byte-identical to the service's. Usage: <databaseUrl> <port>.
 */
import express, { NextFunction, Request, Response } from 'express';
import { Pool } from 'pg';
import { hashesMatch, hashKey, parseKeyPrefix } from '@app/auth';
import { presentContact, encodeCursor } from '@app/contacts';
import type { Contact, ContactMessage } from '@app/contacts';

const [url, port] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 10 });
const app = express();

const CONTACT_COLUMNS = `id, status, email, phone, first_name AS "firstName", last_name AS "lastName", name,
  full_address AS "fullAddress", timezone, website, birthday, postal_code AS "postalCode", city, state,
  country, street, house_number AS "houseNumber", converted_at AS "convertedAt", meta,
  utm_params AS "utmParams", properties, created_at AS "createdAt", updated_at AS "updatedAt"`;

const fail = (res: Response, status: number, error: string) => res.status(status).json({ error, status });

async function auth(req: Request, res: Response, next: NextFunction) {
  const presented = req.header('x-service-api-key') ?? '';
  const prefix = parseKeyPrefix(presented);
  const { rows } = prefix
    ? await pool.query('SELECT company_id, key_hash, revoked_at FROM api_keys WHERE prefix = $1', [prefix])
    : { rows: [] };
  const key = rows[0] as { company_id: string; key_hash: string; revoked_at: Date | null } | undefined;
  if (!key || key.revoked_at || !hashesMatch(key.key_hash, hashKey(presented))) {
    return fail(res, 401, 'Invalid or unauthorized API key');
  }
  res.locals.companyId = key.company_id;
  next();
}

async function funnel(req: Request, res: Response, next: NextFunction) {
  const { rows } = await pool.query('SELECT id FROM funnels WHERE id = $1 AND company_id = $2', [
    req.params.funnelId,
    res.locals.companyId,
  ]);
  if (!rows.length) return fail(res, 404, 'Funnel not found');
  next();
}

async function messagesOf(ids: string[]): Promise<Map<string, ContactMessage[]>> {
  const { rows } = await pool.query<ContactMessage>(
    `SELECT id, contact_id AS "contactId", name, type, subject, content FROM contact_messages
     WHERE contact_id = ANY($1) ORDER BY created_at, id`,
    [ids],
  );
  const byContact = new Map<string, ContactMessage[]>();
  for (const m of rows) byContact.set(m.contactId, [...(byContact.get(m.contactId) ?? []), m]);
  return byContact;
}

app.get('/v1/workspaces', auth, async (_req, res) => {
  const workspaces = await pool.query<{ id: string; name: string }>(
    'SELECT id, name FROM workspaces WHERE company_id = $1 ORDER BY created_at, id',
    [res.locals.companyId],
  );
  const funnels = await pool.query<{ id: string; name: string; status: string; workspace_id: string }>(
    'SELECT id, name, status, workspace_id FROM funnels WHERE workspace_id = ANY($1) ORDER BY created_at, id',
    [workspaces.rows.map((w) => w.id)],
  );
  res.json({
    data: workspaces.rows.map((w) => ({
      id: w.id,
      name: w.name,
      campaigns: funnels.rows
        .filter((f) => f.workspace_id === w.id)
        .map((f) => ({ id: f.id, name: f.name, status: f.status })),
    })),
  });
});

app.get('/v1/funnels/:funnelId/contacts', auth, funnel, async (req, res) => {
  const page = Number(req.query.page ?? 0);
  const limit = Number(req.query.limit ?? 50);
  const funnelId = req.params.funnelId;
  const counted = await pool.query(
    'SELECT sum(contact_count) AS contact_count FROM funnel_contact_counts WHERE funnel_id = $1',
    [funnelId],
  );
  const total = Number(counted.rows[0]?.contact_count ?? 0);
  const found = await pool.query<{ id: string; sort_value: string | null }>(
    `SELECT id, converted_at::text AS sort_value FROM contacts WHERE funnel_id = $1
     ORDER BY converted_at DESC NULLS LAST, id DESC LIMIT $2 OFFSET $3`,
    [funnelId, limit + 1, page * limit],
  );
  const ids = found.rows.map((r) => r.id);
  const pageIds = ids.slice(0, limit);
  const last = found.rows[limit - 1];
  const contacts = await pool.query<Contact>(
    `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE id = ANY($1) AND company_id = $2`,
    [pageIds, res.locals.companyId],
  );
  const byId = new Map(contacts.rows.map((c) => [c.id, c]));
  const messages = await messagesOf(pageIds);
  res.json({
    data: pageIds.map((id) => presentContact(byId.get(id)!, messages.get(id) ?? [])),
    meta: {
      page,
      limit,
      total,
      hasNext: ids.length > limit,
      ...(ids.length > limit
        ? {
            nextCursor: encodeCursor(
              'ps_converted_at',
              -1,
              {},
              { value: last.sort_value, id: last.id, page: page + 1 },
            ),
          }
        : {}),
    },
  });
});

app.get('/v1/funnels/:funnelId/contacts/:contactId', auth, funnel, async (req, res) => {
  const { rows } = await pool.query<Contact>(
    `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE id = $1 AND funnel_id = $2 AND company_id = $3`,
    [req.params.contactId, req.params.funnelId, res.locals.companyId],
  );
  if (!rows.length) return fail(res, 404, 'Contact not found');
  res.json({ data: presentContact(rows[0], (await messagesOf([rows[0].id])).get(rows[0].id) ?? []) });
});

app.listen(Number(port), '127.0.0.1', () => process.send?.('listening'));
