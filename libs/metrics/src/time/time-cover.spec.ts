import { EVENT_GRAINS as GRAINS, SESSION_GRAINS } from './buckets';
import { coverWindow, shortEdges } from './time-cover';

const t = (iso: string) => Date.parse(iso);
const show = (cover: ReturnType<typeof coverWindow>) => ({
  segments: cover.segments.map(
    (s) => `${s.grain} ${new Date(s.from).toISOString()} ${new Date(s.to).toISOString()}`,
  ),
  raw: cover.raw.map((r) => `${new Date(r.from).toISOString()} ${new Date(r.to).toISOString()}`),
});

describe(coverWindow.name, () => {
  it('uses whole days inside, hours, quarters, minutes and ten seconds towards the edges, raw pieces below that', () => {
    const cover = coverWindow(t('2026-01-01T09:47:30.250Z'), t('2026-01-04T13:31:25.001Z'), GRAINS);
    expect(show(cover)).toEqual({
      segments: [
        '10 2026-01-01T09:47:40.000Z 2026-01-01T09:48:00.000Z',
        '60 2026-01-01T09:48:00.000Z 2026-01-01T10:00:00.000Z',
        '3600 2026-01-01T10:00:00.000Z 2026-01-02T00:00:00.000Z',
        '86400 2026-01-02T00:00:00.000Z 2026-01-04T00:00:00.000Z',
        '3600 2026-01-04T00:00:00.000Z 2026-01-04T13:00:00.000Z',
        '900 2026-01-04T13:00:00.000Z 2026-01-04T13:30:00.000Z',
        '60 2026-01-04T13:30:00.000Z 2026-01-04T13:31:00.000Z',
        '10 2026-01-04T13:31:00.000Z 2026-01-04T13:31:20.000Z',
      ],
      raw: [
        '2026-01-01T09:47:30.250Z 2026-01-01T09:47:40.000Z',
        '2026-01-04T13:31:20.000Z 2026-01-04T13:31:25.001Z',
      ],
    });
  });

  it('covers every millisecond exactly once', () => {
    const from = t('2026-03-30T22:13:07.001Z');
    const to = t('2026-04-02T01:59:59.999Z');
    const cover = coverWindow(from, to, GRAINS);
    const pieces = [
      ...cover.segments.map((s) => [s.from, s.to]),
      ...cover.raw.map((r) => [r.from, r.to]),
    ].sort((a, b) => a[0] - b[0]);
    expect(pieces[0][0]).toBe(from);
    expect(pieces[pieces.length - 1][1]).toBe(to);
    for (let i = 1; i < pieces.length; i++) expect(pieces[i][0]).toBe(pieces[i - 1][1]);
    for (const s of cover.segments) {
      expect(s.from % (s.grain * 1000)).toBe(0);
      expect(s.to % (s.grain * 1000)).toBe(0);
    }
  });

  it('only uses the grains it is given (activity charts at a +5:45 offset)', () => {
    const cover = coverWindow(t('2026-01-01T00:00:00Z'), t('2026-01-01T02:00:00Z'), [900, 60, 10]);
    expect(show(cover).segments).toEqual(['900 2026-01-01T00:00:00.000Z 2026-01-01T02:00:00.000Z']);
  });

  it('splits a window shorter than ten seconds at the ten-second boundary', () => {
    expect(show(coverWindow(t('2026-01-01T00:00:03Z'), t('2026-01-01T00:00:12Z'), GRAINS))).toEqual({
      segments: [],
      raw: [
        '2026-01-01T00:00:03.000Z 2026-01-01T00:00:10.000Z',
        '2026-01-01T00:00:10.000Z 2026-01-01T00:00:12.000Z',
      ],
    });
    expect(show(coverWindow(t('2026-01-01T00:00:00Z'), t('2026-01-01T00:00:04Z'), GRAINS)).raw).toEqual([
      '2026-01-01T00:00:00.000Z 2026-01-01T00:00:04.000Z',
    ]);
  });

  describe(shortEdges.name, () => {
    const weight = (cover: ReturnType<typeof coverWindow>, ms: number) =>
      cover.segments.filter((s) => s.from <= ms && ms < s.to).length +
      cover.raw.filter((r) => r.from <= ms && ms < r.to).reduce((sum, r) => sum + r.sign, 0);

    it('reads a piece longer than five seconds as its ten seconds less the rest of them', () => {
      const cover = shortEdges(
        coverWindow(t('2026-01-01T09:47:12.345Z'), t('2026-01-01T10:02:55.679Z'), GRAINS),
      );
      expect(show(cover)).toEqual({
        segments: [
          '10 2026-01-01T09:47:20.000Z 2026-01-01T09:48:00.000Z',
          '60 2026-01-01T09:48:00.000Z 2026-01-01T10:02:00.000Z',
          '10 2026-01-01T10:02:00.000Z 2026-01-01T10:02:50.000Z',
          '10 2026-01-01T09:47:10.000Z 2026-01-01T09:47:20.000Z',
          '10 2026-01-01T10:02:50.000Z 2026-01-01T10:03:00.000Z',
        ],
        raw: [
          '2026-01-01T09:47:10.000Z 2026-01-01T09:47:12.345Z',
          '2026-01-01T10:02:55.679Z 2026-01-01T10:03:00.000Z',
        ],
      });
      expect(cover.raw.map((r) => r.sign)).toEqual([-1, -1]);
      expect(cover.segments.slice(3).map((s) => s.within)).toEqual([
        { from: t('2026-01-01T09:47:12.345Z'), to: t('2026-01-01T09:47:20.000Z') },
        { from: t('2026-01-01T10:02:50.000Z'), to: t('2026-01-01T10:02:55.679Z') },
      ]);
    });

    it('reads a piece longer than half a minute as its minute less the rest when minutes are the finest', () => {
      const cover = shortEdges(
        coverWindow(t('2026-01-01T09:47:12.345Z'), t('2026-01-01T10:02:55.679Z'), SESSION_GRAINS),
      );
      expect(show(cover)).toEqual({
        segments: [
          '60 2026-01-01T09:48:00.000Z 2026-01-01T10:02:00.000Z',
          '60 2026-01-01T09:47:00.000Z 2026-01-01T09:48:00.000Z',
          '60 2026-01-01T10:02:00.000Z 2026-01-01T10:03:00.000Z',
        ],
        raw: [
          '2026-01-01T09:47:00.000Z 2026-01-01T09:47:12.345Z',
          '2026-01-01T10:02:55.679Z 2026-01-01T10:03:00.000Z',
        ],
      });
    });

    it('keeps pieces of five seconds or less as they are', () => {
      const plain = coverWindow(t('2026-01-01T09:47:35.000Z'), t('2026-01-01T09:50:24.999Z'), GRAINS);
      expect(plain.raw).toHaveLength(2);
      expect(shortEdges(plain)).toEqual(plain);
    });

    it.each([
      ['ten seconds', GRAINS, 10_000],
      ['a minute', SESSION_GRAINS, 60_000],
    ])(
      'counts every millisecond of the window once and nothing outside it, with at most half of %s of raw rows per edge',
      (_name, grains, finest) => {
        for (const [from, to] of [
          ['2026-01-01T09:47:12.345Z', '2026-01-01T10:02:55.679Z'],
          ['2026-01-01T09:47:05.000Z', '2026-01-01T09:47:50.000Z'],
          ['2026-01-01T09:47:50.000Z', '2026-01-01T09:48:45.000Z'],
          ['2026-01-01T09:47:01.000Z', '2026-01-01T09:47:08.500Z'],
          ['2026-01-01T09:47:06.000Z', '2026-01-01T09:47:13.000Z'],
          ['2026-01-01T09:47:29.000Z', '2026-01-01T09:47:31.000Z'],
        ]) {
          const cover = shortEdges(coverWindow(t(from), t(to), grains));
          // Every boundary of every piece and its neighbours, and a sweep in between.
          const points = [
            ...[...cover.segments, ...cover.raw, { from: t(from), to: t(to) }].flatMap((p) =>
              [p.from, p.to].flatMap((b) => [b - 1, b, b + 1]),
            ),
          ];
          for (let ms = t(from) - 90_000; ms < t(to) + 90_000; ms += 997) points.push(ms);
          for (const ms of points)
            expect([ms, weight(cover, ms)]).toEqual([ms, ms >= t(from) && ms < t(to) ? 1 : 0]);
          const rawMs = cover.raw.reduce((sum, r) => sum + r.to - r.from, 0);
          expect(rawMs).toBeLessThanOrEqual(finest);
        }
      },
    );
  });
});
