import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { trackerScript } from './tracker-script';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { buildTracker } = require('../../../../scripts/build-tracker.js') as { buildTracker: () => string };

describe('trackerScript', () => {
  it('serves what npm run tracker:build makes of the source', () => {
    expect(readFileSync(join(__dirname, 'tracker.min.js'), 'utf8')).toBe(buildTracker());
  });

  it('is at most 1.5 kB (1,500 bytes) gzipped', () => {
    expect(gzipSync(trackerScript().body, { level: 9 }).length).toBeLessThanOrEqual(1500);
  });

  it('names its version and integrity after its content', () => {
    const script = trackerScript();
    expect(script.versionedFile).toMatch(/^[0-9a-f]{16}\.js$/);
    expect(script.etag).toBe(`"${script.versionedFile.slice(0, 16)}"`);
    expect(script.integrity).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
  });
});
