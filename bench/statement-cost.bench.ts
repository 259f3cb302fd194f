/**
 * `npm run bench:statements -- [contacts]` (default 20000)
 *
 * What a statement costs PostgreSQL when it is sent unnamed (parsed and planned on every run, as
 * behind a transaction pooler) against named (prepared once per connection): the single contact's
 * read as the service sends it, the same without its messages, the version probe of a contact whose
 * text the service keeps (ContactsRepository.versionOf), and a trivial statement, on the
 * data set of `bench:http`, in one connection without HTTP. Prints the planning time
 * (`EXPLAIN (ANALYZE, SUMMARY)`, median of 200) and the round trip each way (mean of 500 runs,
 * median of 9 rounds over every statement).
 */
import { Client } from 'pg';
import { ContactsRepository } from '@app/contacts';
import { fmt, startBenchDatabase } from './metrics/bench-env';
import { buildHttpBenchData } from './http/dataset';

const CONTACTS = Number(process.argv[2] ?? 20000);
const RUNS = 500;
const ROUNDS = 9;

async function main(): Promise<void> {
  const pg = await startBenchDatabase();
  try {
    const data = await buildHttpBenchData(pg.url, CONTACTS);
    const db = new Client({ connectionString: pg.url });
    await db.connect();
    try {
      await db.query('VACUUM ANALYZE');
      const { columns } = (
        await db.query<{ columns: string }>(
          `SELECT string_agg('c.' || attname, ', ' ORDER BY attnum) AS columns FROM pg_attribute
           WHERE attrelid = 'contacts'::regclass AND attnum > 0 AND NOT attisdropped`,
        )
      ).rows[0];
      const where = 'WHERE c.id = $1 AND c.funnel_id = $2 AND c.company_id = $3';
      const statements: Record<string, string> = {
        'one contact': `SELECT ${columns}, ${ContactsRepository.messages('$2')} AS messages, c.xmin::text AS version FROM contacts c ${where}`,
        'without messages': `SELECT ${columns}, c.xmin::text AS version FROM contacts c ${where}`,
        'version probe': `SELECT c.xmin::text AS version FROM contacts c ${where}`,
        trivial: 'SELECT $1::uuid, $2::uuid, $3::uuid',
      };
      const values = [data.contactIds[5], data.funnelId, data.companyId];
      console.log(`\n| statement | planning p50 ms | round trip unnamed ms | round trip named ms |`);
      console.log('|---|---|---|---|');
      const roundTrip = async (name: string, named: boolean) => {
        const text = statements[name];
        const started = process.hrtime.bigint();
        for (let i = 0; i < RUNS; i++) {
          await db.query(named ? { name: `s_${name.replace(/\W/g, '_')}`, text, values } : { text, values });
        }
        return Number(process.hrtime.bigint() - started) / 1e6 / RUNS;
      };
      // Rounds over all the statements, each way in turn, so that a drift of the machine's load
      // meets every statement alike; medians over the rounds.
      const times = new Map<string, number[]>();
      for (let round = 0; round < ROUNDS; round++) {
        for (const name of Object.keys(statements)) {
          for (const named of round % 2 ? [true, false] : [false, true]) {
            const key = `${name}|${named}`;
            times.set(key, [...(times.get(key) ?? []), await roundTrip(name, named)]);
          }
        }
      }
      const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
      for (const [name, text] of Object.entries(statements)) {
        const planning: number[] = [];
        for (let i = 0; i < 200; i++) {
          const { rows } = await db.query(`EXPLAIN (ANALYZE, SUMMARY, FORMAT JSON) ${text}`, values);
          planning.push(rows[0]['QUERY PLAN'][0]['Planning Time'] as number);
        }
        console.log(
          `| ${name} | ${fmt(median(planning), 3)} | ${fmt(median(times.get(`${name}|false`)!), 3)} | ${fmt(median(times.get(`${name}|true`)!), 3)} |`,
        );
      }
    } finally {
      await db.end();
    }
  } finally {
    await pg.destroy();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
