// Runs npm scripts at the same time (the static checks use one core each and wait on none of the others),
// prints each one's output whole when it ends, and exits 1 when any failed.
// Usage: node scripts/parallel.mjs typecheck lint format:check
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const run = (script) =>
  new Promise((resolve) => {
    const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`}\n${output}`);
      resolve(code === 0);
    });
  });

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  console.error('Expected npm script names, got none');
  process.exit(2);
}
const results = await Promise.all(scripts.map(run));
process.exit(results.every(Boolean) ? 0 : 1);
