import { Client } from 'pg';
import { SERVICE_SERVER_SETTINGS } from '@app/core';
import { FixedOffsetZone, parseSteps, stepFunnelSql } from '@app/metrics';
import { rawStepFunnel, rawStepFunnelSql } from '../../test/support/raw-step-funnel';
import { fmt } from './bench-env';

/**
 * The step funnel as it was read before the step summaries (events joined to sessions), on the
 * same data: checks that the route's answer equals it, times it, and prints its plan on the larger
 * funnel, so the figures of both ways come from the same run. It reads on a connection of its own
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
    for (const f of funnels) {
      const res = await fetch(
        `${baseUrl}/v1/funnels/${f.funnelId}/metrics/funnel?from=${from}&to=${to}&steps=${steps.join(',')}&within=PT${withinMs / 1000}S`,
        { headers: { 'x-service-api-key': f.key } },
      );
      const answer = ((await res.json()) as { data: unknown }).data;
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
    await explain(
      'from the step summaries',
      stepFunnelSql(
        large.funnelId,
        { ...window, zone: new FixedOffsetZone(0) },
        parseSteps(steps.join(','), []),
        withinMs,
        {},
      ),
    );
  } finally {
    await db.end();
  }
}
