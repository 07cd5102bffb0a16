#!/usr/bin/env node
const args = process.argv.slice(2);
// `redline --version` alone needs no CLI: answered before commander and the commands load.
if (args.length === 1 && (args[0] === '--version' || args[0] === '-V')) {
  const { VERSION } = await import('../dist/cli/version.js');
  process.stdout.write(`${VERSION}\n`);
} else {
  // The CLI bundled with its dependencies (scripts/bundle-cli.mjs): far fewer modules to load than dist/cli/.
  const { main } = await import('../dist/cli-bundle/main.js');
  // A closed pipe (`redline ledger show … | head`) ends the output quietly, as other CLIs do.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
  process.exitCode = await main(args);
}
