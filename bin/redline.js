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
  const { bundle, save } = startBundle({
    dir: fileURLToPath(new globalThis.URL('../dist/cli-bundle/', import.meta.url)),
    command: args[0],
    importer: (specifier) => import(specifier),
  });
  // What the command compiled is kept for the next start, once, when there was no cache to use: after it
  // did its work (not its help, not a usage error), so that the cache holds what the command runs.
  const help = args.includes('--help') || args.includes('-h') || args[0] === 'help';
  process.once('exit', (code) => {
    if (!help && (code === 0 || code === 1)) save();
  });
  // A closed pipe (`redline ledger show … | head`) ends the output quietly, as other CLIs do.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await bundle.main(args);
}
