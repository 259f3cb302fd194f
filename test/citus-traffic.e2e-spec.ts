import { Client } from 'pg';
import { CITUS_EVERY_SHARD } from '../db/citus-plan';
import { CitusCluster, citusInstalled, startCitusCluster, CITUS_LIBRARY } from './support/citus-cluster';
import { Answer, normalise, runTraffic } from './support/citus-traffic';
import { createTestDatabase } from './support/database';
import { runAdmin } from './support/processes';

// Three PostgreSQL servers and one more, every migration, the distribution and the API's traffic
// twice, on a machine shared with other suites.
jest.setTimeout(600_000);

const suite = citusInstalled() ? describe : describe.skip;
if (!citusInstalled()) console.log(`Citus traffic suite skipped: ${CITUS_LIBRARY} is not installed`);

/** A statement's name in CITUS_EVERY_SHARD: its first 80 characters, spaces collapsed. */
const fingerprint = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 80);

suite('Citus cluster: the API answers as on one PostgreSQL', () => {
  let cluster: CitusCluster;
  let single: { url: string; drop(): Promise<void> };
  let expected: Answer[];
  let actual: Answer[];
  // The statements Citus itself reports running on more than one shard.
  const everyShard = new Set<string>();
  const original = Client.prototype.query;

  beforeAll(async () => {
    [cluster, single] = await Promise.all([startCitusCluster(), createTestDatabase()]);
    const distributed = await runAdmin(['citus', 'distribute', '--shard-count', '4'], {
      DATABASE_URL: cluster.url,
    });
    expect(distributed.stderr).toBe('');
    expected = await runTraffic(single.url);
    // Citus sends a notice before it runs a statement as tasks on several shards: each connection
    // of the service's traffic on the coordinator gets the setting, and the notice names the statement running.
    const admin = new Client({ connectionString: cluster.url });
    await admin.connect();
    await admin
      .query(
        `ALTER DATABASE ${new URL(cluster.url).pathname.slice(1)} SET citus.multi_task_query_log_level = 'notice'`,
      )
      .finally(() => admin.end());
    const listening = new WeakSet<Client>();
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      if (!listening.has(this)) {
        listening.add(this);
        this.on('notice', (notice) => {
          const running = (this as unknown as { _activeQuery?: { text?: string } })._activeQuery?.text;
          if (/multi-task query/.test(notice.message ?? '') && running) {
            everyShard.add(fingerprint(running));
            if (!CITUS_EVERY_SHARD.includes(fingerprint(running))) console.log(`on every shard: ${running}`);
          }
        });
      }
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof Client.prototype.query;
    try {
      actual = await runTraffic(cluster.url);
    } finally {
      Client.prototype.query = original;
    }
  });
  afterAll(async () => {
    Client.prototype.query = original;
    await single?.drop();
    await cluster?.stop();
  });

  it('answers every call of the traffic, none with a server error, on one PostgreSQL', () => {
    expect(expected.length).toBeGreaterThan(50);
    expect(expected.filter((a) => a.status >= 500)).toEqual([]);
    expect(expected.find((a) => a.call === 'segment fold')?.body).toBe('folded');
    // The refusals the traffic asks for, and no other.
    const refused = expected
      .filter((a) => a.status >= 400)
      .map((a) => `${a.status} ${a.call.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '{id}')}`);
    expect(refused).toEqual([
      '409 PUT {funnel}/contacts/{id}/values',
      '409 PATCH {funnel}/contacts/{id}',
      // Links and reports of messages that were never sent.
      '404 GET /email/click/{token}',
      '404 POST /sms/status',
      '404 DELETE {funnel}/contacts/{id}',
      '404 GET {funnel}/contacts/{id}',
    ]);
    const mcp = expected.filter((a) => a.call.startsWith('mcp '));
    expect(mcp).toHaveLength(15);
    expect(mcp.filter((a) => a.status !== 0)).toEqual([]);
    expect(expected.find((a) => a.call === 'admin demo seed')?.body).toMatchObject({ created: true });
  });

  it('answers every call on the cluster as on one PostgreSQL (ids and times aside)', () => {
    const shown = (answers: Answer[]) => {
      const ids = new Map<string, string>();
      return answers.map((a) => normalise(a, ids));
    };
    expect(shown(actual)).toEqual(shown(expected));
  });

  it('runs on every shard only the statements db/citus-plan.ts lists, as Citus reports them', () => {
    // Everything else the traffic sent named one funnel (or company) and went to one shard.
    expect([...everyShard].sort()).toEqual([...CITUS_EVERY_SHARD].sort());
  });
});
