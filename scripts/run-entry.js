// Runs an entry point from the build in production, or from source (TypeScript via swc) otherwise.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

module.exports = function runEntry(sourcePath) {
  const root = join(__dirname, '..');
  const built = join(root, 'dist', sourcePath.replace(/\.ts$/, '.js'));
  if (process.env.NODE_ENV === 'production') {
    if (!existsSync(built)) {
      console.error(`${built} is missing: run \`npm run build\` first`);
      process.exit(1);
    }
    require(built);
  } else {
    require('@swc-node/register');
    require(join(root, sourcePath));
  }
};
