import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The tracker as served: its minified text, validator, versioned file name and SRI digest. */
export interface TrackerScript {
  body: Buffer;
  etag: string;
  /** `<hash>.js`: the URL under /tracker/ that never changes content. */
  versionedFile: string;
  /** For the `integrity` attribute of the tag. */
  integrity: string;
}

let script: TrackerScript | undefined;

/** Read once: the file is built (npm run tracker:build) and shipped beside this module. */
export function trackerScript(): TrackerScript {
  if (script) return script;
  const body = readFileSync(join(__dirname, 'tracker.min.js'));
  const version = createHash('sha256').update(body).digest('hex').slice(0, 16);
  script = {
    body,
    etag: `"${version}"`,
    versionedFile: `${version}.js`,
    integrity: `sha384-${createHash('sha384').update(body).digest('base64')}`,
  };
  return script;
}
