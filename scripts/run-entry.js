// Runs an entry point from the build in production, or from source (TypeScript via swc) otherwise.
const { existsSync } = require('node:fs');
const { join } = require('node:path');

// The Node lines in support, as package.json's `engines` says.
function supported(version) {
  const [major, minor] = version.split('.').map(Number);
  return (major === 22 && minor >= 12) || major === 24 || major === 26;
}

module.exports = function runEntry(sourcePath, options = {}) {
  if (!supported(process.versions.node)) {
    const error =
      `Node ${process.versions.node} is not supported: use Node 24 LTS (.nvmrc). \`npm ci\` installs it ` +
      'for the npm scripts on Linux; elsewhere install Node 22.12 or later.';
    console.error(options.json ? JSON.stringify({ error }) : error);
    process.exit(1);
  }
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
