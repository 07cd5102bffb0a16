#!/usr/bin/env node
const args = process.argv.slice(2);
// `redline --version` alone needs no CLI: answered before commander and the commands load.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/cli/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  // The CLI bundled with its dependencies into one file (scripts/bundle-cli.mjs), compiled with a code cache.
  const { startBundle } = await import('../dist/cli/start-bundle.js');
  const { fileURLToPath } = await import('node:url');
  // Help has a cache of its own: what printing help compiles is not what a command runs.
  const help = args.includes('--help') || args.includes('-h') || args[0] === 'help';
  const { bundle, save } = startBundle({
    dir: fileURLToPath(new globalThis.URL('../dist/cli-bundle/', import.meta.url)),
    command: help ? 'help' : args[0],
    importer: (specifier) => import(specifier),
  });
  // What the command compiled is kept for the next start, once, when there was no cache to use: after it
  // did its work (not a usage error), so that the cache holds what the command runs.
  process.once('exit', (code) => {
    if (code === 0 || code === 1) save();
  });
  // A closed pipe (`redline ledger show … | head`) ends the output quietly, as other CLIs do.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await bundle.main(args);
}
