/**
 * The reference of `npm run bench:collect`: a minimal express 5 + pg server that takes a page's
 * events the straightforward way: parse the JSON, check the origin against the funnel's row, and
 * insert the request's events with one INSERT. No validation, no sessions, no rollups: the floor
 * of what storing each request's events costs. Usage: <databaseUrl> <port>.
 */
import express from 'express';
import { Pool } from 'pg';

const [url, port] = process.argv.slice(2);
const pool = new Pool({ connectionString: url, max: 10 });
const app = express();
app.use(express.json({ limit: '16kb' }));
app.use(express.text({ type: 'text/plain', limit: '16kb' }));

interface RawEvent {
  type: string;
  sessionId: string;
  occurredAt: string;
  [member: string]: unknown;
}

app.post('/v1/funnels/:funnelId/collect', async (req, res) => {
  const body = (typeof req.body === 'string' ? JSON.parse(req.body) : req.body) as { events: RawEvent[] };
  const funnel = await pool.query('SELECT collection_origins FROM funnels WHERE id = $1', [
    req.params.funnelId,
  ]);
  if (!funnel.rows[0]?.collection_origins.includes(req.header('origin'))) return res.status(403).end();
  const values: unknown[] = [];
  const rows = body.events.map((e, i) => {
    values.push(req.params.funnelId, e.sessionId, e.type, e.occurredAt, JSON.stringify(e));
    return `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`;
  });
  await pool.query(
    `INSERT INTO reference_events (funnel_id, session_id, type, occurred_at, payload) VALUES ${rows.join(', ')}`,
    values,
  );
  res.setHeader('Access-Control-Allow-Origin', String(req.header('origin')));
  res.status(202).end();
});

app.listen(Number(port), '127.0.0.1', () => process.send?.('ready'));
