// Runs npm scripts at the same time (the static checks use one core each and wait on none of the others),
// prints each one's output whole when it ends, and exits 1 when any failed. Scripts named after
// --background run at a lower CPU priority (nice 10): they take the cores the others leave idle, so on a
// busy machine the tests' own child processes (checks with timeouts) are not starved by a cold type-check.
// Usage: node scripts/parallel.mjs test:unit --background typecheck lint format:check
import { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';

const run = (script, background) =>
  new Promise((resolve) => {
    const [command, args] = background ? ['nice', ['-n', '10', 'npm', 'run', script]] : ['npm', ['run', script]];
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('close', (code, signal) => {
      const output = Buffer.concat(chunks).toString();
      process.stdout.write(`> ${script}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`}\n${output}`);
      resolve(code === 0);
    });
  });

const given = process.argv.slice(2);
const split = given.indexOf('--background');
const scripts = split === -1 ? given : given.slice(0, split);
const background = split === -1 ? [] : given.slice(split + 1);
if (scripts.length + background.length === 0) {
  console.error('Expected npm script names, got none');
  process.exit(2);
}
const results = await Promise.all([...scripts.map((script) => run(script, false)), ...background.map((script) => run(script, true))]);
process.exit(results.every(Boolean) ? 0 : 1);
