#!/usr/bin/env node
import { main } from '../dist/cli/main.js';

// A closed pipe (`redline ledger show … | head`) ends the output quietly, as other CLIs do.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});
process.exitCode = await main(process.argv.slice(2));
