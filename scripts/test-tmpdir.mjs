// Prints the temporary directory the unit suite runs with, creating it: a folder of this user's on a
// memory file system (/dev/shm) when the machine has one, else the usual temporary directory. The suite
// makes and removes tens of thousands of small files (snapshots, check copies, ledgers); on a disk file
// system such as ext4 the kernel's share of that was about 40 of the suite's 245 CPU seconds, on tmpfs about 20.
// The end-to-end suites keep the usual one (a sandbox replaces /dev).
//   TMPDIR=$(node scripts/test-tmpdir.mjs) node --test …
import { mkdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const MEMORY = '/dev/shm';

function memoryFolder() {
  try {
    if (!statSync(MEMORY).isDirectory()) return undefined;
    const folder = path.join(MEMORY, `redline-tests-${os.userInfo().uid}`);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const info = statSync(folder);
    // A folder another user made (or opened to others) is not used: tests keep ledgers and keys in it.
    if (info.uid !== os.userInfo().uid || (info.mode & 0o077) !== 0) return undefined;
    return folder;
  } catch {
    return undefined;
  }
}

process.stdout.write(memoryFolder() ?? os.tmpdir());
