import { createRandom } from '../../apps/admin/src/demo/demo-data';

// Three minutes of random traffic, for suites that compare rollups with the raw rows they count.
export const T0 = Date.parse('2026-05-10T10:00:00Z');
export const SPAN = 3 * 60_000;
export const QUESTIONS = ['question_1', 'question_2'];

/** Random sessions: every attribute optional, answers repeated and re-answered, completions before starts. */
export function randomTraffic(seed: number, sessions: number): Record<string, unknown>[] {
  const random = createRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const at = (ms: number) => new Date(Math.max(T0, Math.min(T0 + SPAN - 1, ms))).toISOString();
  const events: Record<string, unknown>[] = [];
  for (let s = 0; s < sessions; s++) {
    const sessionId = `r-${s}`;
    const start = T0 + Math.floor(random() * SPAN);
    const utm = random() < 0.6 ? { utm: { source: pick(['google', 'facebook', 'Google', 'ads; x']) } } : {};
    const variant = random() < 0.5 ? { abVariant: pick(['original', 'variant']) } : {};
    events.push({
      type: 'session_start',
      sessionId,
      occurredAt: at(start),
      visitorId: `v-${s}`,
      device: pick(['mobile', 'desktop', 'tablet', 'other']),
      ...utm,
      ...variant,
    });
    // A second, later session_start does not change the session.
    if (random() < 0.1)
      events.push({
        type: 'session_start',
        sessionId,
        occurredAt: at(start + 500),
        visitorId: 'late',
        device: 'other',
      });
    for (const slug of ['start', 'details', 'done']) {
      if (random() < 0.6)
        events.push({
          type: 'page_view',
          sessionId,
          occurredAt: at(start + Math.floor(random() * 20_000)),
          pageSlug: slug,
          ...(random() < 0.7 ? { timeOnPageMs: Math.floor(random() * 60_000) } : {}),
        });
    }
    for (let n = Math.floor(random() * 3); n > 0; n--) {
      const label = pick(['Next', 'Go', 'Weiter', 'Zzz', null]);
      events.push({
        type: 'button_click',
        sessionId,
        // Whole seconds: clicks of different sessions share times, so label ties are exercised.
        occurredAt: at(Math.floor((start + random() * 20_000) / 1000) * 1000),
        pageSlug: 'start',
        buttonId: pick(['cta-1', 'cta-2', 'cta-3']),
        ...(label ? { buttonLabel: label } : {}),
      });
    }
    for (const questionId of QUESTIONS) {
      const times = random() < 0.5 ? 0 : 1 + Math.floor(random() * 3);
      for (let n = 0; n < times; n++) {
        const answers = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
          pick(['A', 'B', 'C', 'a', 'Ä']),
        );
        events.push({
          type: 'answer',
          sessionId,
          occurredAt: at(start + 2000 + Math.floor(random() * 3) * 1000),
          questionId,
          questionTitle: `Title of ${questionId}`,
          answers,
        });
      }
    }
    if (random() < 0.4) events.push({ type: 'conversion', sessionId, occurredAt: at(start + 5000) });
    if (random() < 0.3)
      events.push({
        type: 'completion',
        sessionId,
        occurredAt: at(start + Math.floor(random() * 40_000) - 2000),
      });
  }
  return events;
}
