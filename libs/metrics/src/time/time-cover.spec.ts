import fc from 'fast-check';
import { MESSAGE_GRAINS as GRAINS, SEGMENT_GRAINS } from './buckets';

const SESSION_GRAINS = [86_400, 3_600, 900, 60] as const;
import { Cover, coverWindow, signedCover } from './time-cover';

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

  describe(signedCover.name, () => {
    const weight = (cover: Cover, ms: number) =>
      cover.segments.filter((s) => s.from <= ms && ms < s.to).reduce((sum, s) => sum + s.sign, 0) +
      cover.raw.filter((r) => r.from <= ms && ms < r.to).reduce((sum, r) => sum + r.sign, 0);
    const buckets = (cover: Cover) =>
      cover.segments.reduce((sum, s) => sum + (s.to - s.from) / (s.grain * 1000), 0);
    const signed = (cover: Cover) => ({
      ...show(cover),
      signs: [...cover.segments.map((s) => s.sign), ...cover.raw.map((r) => r.sign)],
    });

    it('reaches an edge from the nearest boundary of each grain, subtracting what lies outside', () => {
      // 17:00:30 to 16:59:30 two days later at minutes: 7 hours from 17:00 less half a minute, a
      // day, and the last day less 7 hours and half a minute (16 buckets), against 14 minutes,
      // 3 quarters, 6 hours, a day, 16 hours, 3 quarters and 14 minutes (57) from the inside.
      const cover = signedCover(t('2026-01-01T17:00:30Z'), t('2026-01-03T16:59:30Z'), SESSION_GRAINS);
      expect(signed(cover)).toEqual({
        segments: [
          '86400 2026-01-03T00:00:00.000Z 2026-01-04T00:00:00.000Z',
          '86400 2026-01-02T00:00:00.000Z 2026-01-03T00:00:00.000Z',
          '3600 2026-01-01T17:00:00.000Z 2026-01-01T18:00:00.000Z',
          '3600 2026-01-01T18:00:00.000Z 2026-01-02T00:00:00.000Z',
          '3600 2026-01-03T17:00:00.000Z 2026-01-04T00:00:00.000Z',
        ],
        raw: [
          '2026-01-01T17:00:00.000Z 2026-01-01T17:00:30.000Z',
          '2026-01-03T16:59:30.000Z 2026-01-03T17:00:00.000Z',
        ],
        signs: [1, 1, 1, 1, -1, -1, -1],
      });
      expect(cover.segments[0].within).toEqual({
        from: t('2026-01-03T00:00:00Z'),
        to: t('2026-01-03T16:59:30Z'),
      });
      expect(cover.segments[2].within).toEqual({
        from: t('2026-01-01T17:00:30Z'),
        to: t('2026-01-01T18:00:00Z'),
      });
      expect(buckets(cover)).toBe(16);
      expect(buckets(coverWindow(t('2026-01-01T17:00:30Z'), t('2026-01-03T16:59:30Z'), SESSION_GRAINS))).toBe(
        57,
      );
    });

    it('reaches past the edges with its finest buckets only when coarse ones may not (latest labels)', () => {
      const cover = signedCover(t('2026-01-01T09:47:12.345Z'), t('2026-01-01T10:02:55.679Z'), GRAINS, {
        coarseOutside: false,
      });
      expect(signed(cover)).toEqual({
        segments: [
          '60 2026-01-01T09:48:00.000Z 2026-01-01T10:00:00.000Z',
          '10 2026-01-01T09:47:10.000Z 2026-01-01T09:47:20.000Z',
          '10 2026-01-01T09:47:20.000Z 2026-01-01T09:48:00.000Z',
          '60 2026-01-01T10:00:00.000Z 2026-01-01T10:02:00.000Z',
          '10 2026-01-01T10:02:50.000Z 2026-01-01T10:03:00.000Z',
          '10 2026-01-01T10:02:00.000Z 2026-01-01T10:02:50.000Z',
        ],
        raw: [
          '2026-01-01T09:47:10.000Z 2026-01-01T09:47:12.345Z',
          '2026-01-01T10:02:55.679Z 2026-01-01T10:03:00.000Z',
        ],
        signs: [1, 1, 1, 1, 1, 1, -1, -1],
      });
      expect(cover.segments.filter((s) => s.within).map((s) => s.within)).toEqual([
        { from: t('2026-01-01T09:47:12.345Z'), to: t('2026-01-01T09:47:20.000Z') },
        { from: t('2026-01-01T10:02:50.000Z'), to: t('2026-01-01T10:02:55.679Z') },
      ]);
    });

    it('reads a window inside one finest bucket raw when that is shorter', () => {
      expect(signed(signedCover(t('2026-01-01T00:00:03Z'), t('2026-01-01T00:00:07Z'), GRAINS))).toEqual({
        segments: [],
        raw: ['2026-01-01T00:00:03.000Z 2026-01-01T00:00:07.000Z'],
        signs: [1],
      });
    });

    it('reads only the buckets it may, and raw rows where it may read none', () => {
      // The minute 09:47 may not be read: the edge is read raw, from inside.
      const unusable = { from: t('2026-01-01T09:47:00Z'), to: t('2026-01-01T09:48:00Z') };
      const cover = signedCover(
        t('2026-01-01T09:47:12.345Z'),
        t('2026-01-01T10:02:55.679Z'),
        SESSION_GRAINS,
        {
          usable: (r) => r.to <= unusable.from || r.from >= unusable.to,
        },
      );
      expect(show(cover).raw).toEqual([
        '2026-01-01T09:47:12.345Z 2026-01-01T09:48:00.000Z',
        '2026-01-01T10:02:55.679Z 2026-01-01T10:03:00.000Z',
      ]);
    });

    const grainSets = [GRAINS, SESSION_GRAINS, SEGMENT_GRAINS, [900, 60, 10]] as const;
    it('counts every millisecond of the window once and nothing outside it, over at most as many rows as from the inside', () => {
      const DAY = 86_400_000;
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 3 * DAY }),
          fc.integer({ min: 1, max: 3 * DAY }),
          fc.constantFrom(...grainSets),
          fc.boolean(),
          fc.option(fc.integer({ min: 0, max: 4 * DAY }), { nil: null }),
          fc.array(fc.integer({ min: 0, max: 4 * DAY }), { maxLength: 30 }),
          (start, length, grains, coarseOutside, usableTo, extra) => {
            const from = t('2026-01-01T00:00:00Z') + start;
            const to = from + length;
            const limit = usableTo === null ? Infinity : from + usableTo - DAY / 2;
            const usable = (r: { from: number; to: number }) => r.to <= limit;
            const cover = signedCover(from, to, grains, { coarseOutside, usable });
            const finest = grains[grains.length - 1] * 1000;
            const points = [...cover.segments, ...cover.raw, { from, to }].flatMap((p) =>
              [p.from, p.to].flatMap((b) => [b - 1, b, b + 1]),
            );
            for (const ms of [...points, ...extra.map((e) => from - DAY / 2 + e)])
              expect([ms, weight(cover, ms)]).toEqual([ms, ms >= from && ms < to ? 1 : 0]);
            for (const s of cover.segments) {
              const size = s.grain * 1000;
              // Counted buckets meet the window; one that holds part of it names that part, and is
              // one bucket (of the finest grain when coarse ones may not reach outside).
              const partial = s.sign > 0 && (s.from < from || s.to > to);
              expect({
                usable: usable(s),
                aligned: s.from % size === 0 && s.to % size === 0,
                meets: s.sign < 0 || (s.from < to && s.to > from),
                within: s.within,
                size: partial ? s.to - s.from : null,
                finest: partial && !coarseOutside ? size : null,
              }).toEqual({
                usable: true,
                aligned: true,
                meets: true,
                within: partial ? { from: Math.max(s.from, from), to: Math.min(s.to, to) } : undefined,
                size: partial ? size : null,
                finest: partial && !coarseOutside ? finest : null,
              });
            }
            // Raw rows counted lie inside, subtracted ones outside.
            for (const r of cover.raw)
              expect(r.sign > 0 ? r.from >= from && r.to <= to : r.to <= from || r.from >= to).toBe(true);
            // Where every bucket may be read: at most half a finest bucket of raw rows per edge, and
            // at most one finest bucket per edge more than the cover from the inside.
            const rawMs = cover.raw.reduce((sum, r) => sum + r.to - r.from, 0);
            expect(usableTo !== null || rawMs <= Math.min(finest, to - from)).toBe(true);
            expect(usableTo !== null || buckets(cover) <= buckets(coverWindow(from, to, grains)) + 2).toBe(
              true,
            );
          },
        ),
        { numRuns: 2000 },
      );
    });
  });
});
