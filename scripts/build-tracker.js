// Minifies the tracker into the file the service serves (libs/collection/src/tracker/tracker.min.js).
// A spec fails when the committed file is not what this script makes of the source.
const { readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { minifySync } = require('@swc/core');

const DIR = join(__dirname, '../libs/collection/src/tracker');
const OPTIONS = { compress: { passes: 2 }, mangle: true, ecma: 2017 };

function buildTracker() {
  return minifySync(readFileSync(join(DIR, 'tracker.js'), 'utf8'), OPTIONS).code + '\n';
}

module.exports = { buildTracker };
if (require.main === module) writeFileSync(join(DIR, 'tracker.min.js'), buildTracker());
