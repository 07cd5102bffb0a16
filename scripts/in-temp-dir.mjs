// Runs a command with TMPDIR (and TMP, TEMP) set to a new folder of its own, and removes that folder
// when the command ends, however it ends: what the suites' processes leave in their temp folder (run
// directories of a killed `redline run`, the default cache of the CLIs they start, tsx's cache) goes with
// it. With --memory the folder is made on /dev/shm when this user can have a private folder there (the unit
// suite makes and removes tens of thousands of small files: on ext4 the kernel's share of that was about
// 40 of its 245 CPU seconds, on tmpfs about 20); else, and without it, in the usual temporary directory.
// A folder left by a run that was killed is removed by scripts/sweep-test-leftovers.mjs (its name ends in
// the pid of this script). Exits with the command's code; a signal it gets is passed on to the command.
//   node scripts/in-temp-dir.mjs [--memory] -- COMMAND [ARG…]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MEMORY = '/dev/shm';

function memoryUsable() {
  try {
    const info = statSync(MEMORY);
    return info.isDirectory() && (info.mode & 0o1000) !== 0;
  } catch {
    return false;
  }
}

const args = process.argv.slice(2);
const memory = args[0] === '--memory';
const command = args.slice(args.indexOf('--') + 1);
if (!args.includes('--') || command.length === 0) {
  process.stderr.write('usage: node scripts/in-temp-dir.mjs [--memory] -- COMMAND [ARG…]\n');
  process.exit(2);
}
const base = memory && memoryUsable() ? MEMORY : os.tmpdir();
// mkdtemp makes it 0700: tests keep ledgers and keys in it.
const dir = mkdtempSync(path.join(base, `redline-tests-${process.pid}-`));
const child = spawn(command[0], command.slice(1), {
  stdio: 'inherit',
  // The CLI's code cache too (src/cli/start-bundle.ts): shared by the command's processes, never the user's.
  env: { REDLINE_CODE_CACHE: path.join(dir, 'code-cache'), ...process.env, TMPDIR: dir, TMP: dir, TEMP: dir },
});
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
/** Removes the folder; a failure is said, and the command's own exit code is kept. */
function removeDir() {
  try {
    rmSync(dir, { recursive: true, force: true });
  } catch (error) {
    process.stderr.write(`in-temp-dir: could not remove ${dir}: ${error.message}\n`);
  }
}
child.on('error', (error) => {
  process.stderr.write(`in-temp-dir: ${command[0]}: ${error.message}\n`);
  removeDir();
  process.exit(127);
});
child.on('exit', (code, signal) => {
  removeDir();
  process.exit(code ?? (signal === null ? 1 : 128 + os.constants.signals[signal]));
});
