import { Client } from 'pg';
import { SERVICE_SERVER_SETTINGS } from '@app/core';
import { FixedOffsetZone, parseSteps, stepFunnelSql } from '@app/metrics';
import { rawStepFunnel, rawStepFunnelSql } from '../../test/support/raw-step-funnel';
import { fmt } from './bench-env';

/**
 * The step funnel as it was read before the step summaries (events joined to sessions), on the
 * same data: checks that the route's exact answer (exact=true) equals it, times it, prints how far
 * the answer as asked by default (from a sample when the sessions are many) is from it, and prints
 * the plans on the larger funnel, so the figures of every way come from the same run. It reads on a connection of its own
 * with the server's defaults and no time bound: at 100 M events a month the old way takes longer
 * than a request may, and the service's connections plan without parallel workers, which it used.
 */
export async function compareStepFunnelWithEvents(
  url: string,
  baseUrl: string,
  funnels: { label: string; funnelId: string; key: string }[],
  window: { from: number; to: number },
  steps: string[],
  withinMs: number,
  runs: number,
): Promise<void> {
  const from = new Date(window.from).toISOString();
  const to = new Date(window.to).toISOString();
  console.log(`\nstep funnel ${steps.join(',')} over ${from} – ${to}, read from events as before:`);
  const db = new Client({ connectionString: url, statement_timeout: 0 });
  await db.connect();
  const query = async (text: string, values?: unknown[]) => (await db.query(text, values)).rows;
  try {
    let largeBuckets = 1024;
    for (const f of funnels) {
      const ask = async (extra: string) => {
        const res = await fetch(
          `${baseUrl}/v1/funnels/${f.funnelId}/metrics/funnel?from=${from}&to=${to}&steps=${steps.join(',')}&within=PT${withinMs / 1000}S${extra}`,
          { headers: { 'x-service-api-key': f.key } },
        );
        return (await res.json()) as {
          data: { value: number }[];
          meta: { exact: boolean; sampleRate: number };
        };
      };
      const answer = (await ask('&exact=true')).data;
      // The answer as asked by default: from a sample of the sessions when there are many.
      const asked = await ask('');
      // About the buckets the route read (its sample's share of 1,024), for the plan below.
      largeBuckets = Math.max(8, Math.round(asked.meta.sampleRate * 1024));
      const times: number[] = [];
      let expected: unknown;
      for (let run = 0; run < runs; run++) {
        const t0 = performance.now();
        expected = await rawStepFunnel({ query }, f.funnelId, from, to, steps, withinMs);
        times.push(performance.now() - t0);
      }
      times.sort((a, b) => a - b);
      const same = JSON.stringify(answer) === JSON.stringify(expected);
      console.log(
        `  ${f.label.padEnd(4)} from events: p50 ${fmt(times[Math.floor((runs - 1) / 2)], 0)} ms over ${runs} runs; ` +
          `the route's answer ${same ? 'equals it' : 'DIFFERS'}: ${JSON.stringify(answer)}`,
      );
      if (!same) console.log(`       from events: ${JSON.stringify(expected)}`);
      const errors = asked.data.map(
        (p, i) => (100 * (p.value - answer[i].value)) / Math.max(1, answer[i].value),
      );
      console.log(
        `       as asked (${JSON.stringify(asked.meta)}): ${JSON.stringify(asked.data)}; ` +
          `values off the exact ones by ${errors.map((e) => `${fmt(e, 2)} %`).join(', ')}`,
      );
    }
    const large = funnels[funnels.length - 1];
    const explain = async (label: string, { text, values }: { text: string; values: unknown[] }) => {
      const plan: { 'QUERY PLAN': string }[] = await query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, values);
      console.log(
        `  plan ${label} on ${large.label}:\n${plan.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`,
      );
    };
    await explain('from events (before)', rawStepFunnelSql(large.funnelId, from, to, steps, withinMs));
    // As the service plans it (SERVICE_SERVER_SETTINGS).
    for (const [name, value] of Object.entries(SERVICE_SERVER_SETTINGS))
      await query(`SET ${name} = ${value}`);
    const summaries = (buckets: number) =>
      stepFunnelSql(
        large.funnelId,
        { ...window, zone: new FixedOffsetZone(0) },
        parseSteps(steps.join(','), []),
        withinMs,
        {},
        buckets,
      );
    await explain('from the step summaries, every session (exact=true)', summaries(1024));
    if (largeBuckets < 1024)
      await explain(
        `from the step summaries, as asked (about ${largeBuckets} buckets of 1024)`,
        summaries(largeBuckets),
      );
  } finally {
    await db.end();
  }
}
