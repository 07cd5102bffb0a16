// Removes what test processes that were killed (an interrupted `npm test`, a crash test's child) could not
// clean up themselves: their temporary directories (`<tmp>/redline-…-<pid>-XXXXXX`, test/helpers/workspace.ts,
// and a suite's own `redline-tests-<pid>-XXXXXX` from scripts/in-temp-dir.mjs, on /dev/shm or in <tmp>)
// and their PostgreSQL schemas (`redline_…_<pid>[_<hex>][_jobs]` in the test database). Only those whose
// process is gone: a suite running beside this one keeps its own. Run before each suite (package.json).
import { lstat, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

const POSTGRES = 'postgres://postgres@127.0.0.1:5432/test';
const TEMPORARY = /^redline-[a-z0-9-]+?-(\d+)-[A-Za-z0-9]{6}$/;
// redline's own temporaries (src/process/process-temporary.ts), `redline-<kind>-<pid>-<host>-XXXXXX`, are
// left to redline's own sweep: read with TEMPORARY, a host part of digits alone would pass for a pid.
const PROCESS_TEMPORARY = /^redline-[a-z]+(?:-[a-z]+)*-\d+-[0-9a-f]{6}-[A-Za-z0-9]{6}$/;
const SCHEMA = /^redline_[a-z_]+?_(\d+)(?:_[0-9a-f]{6,8})?(?:_jobs)?$/;

/** Whether process `pid` is gone (one that cannot be signalled counts as running). */
function gone(pid) {
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return error.code === 'ESRCH';
  }
}

let directories = 0;
// The suites' own temp folders (scripts/in-temp-dir.mjs) are made in the temporary directory or on /dev/shm.
for (const base of new Set([os.tmpdir(), '/dev/shm'])) {
  const names = await readdir(base).catch(() => []);
  for (const name of names) {
    const match = TEMPORARY.exec(name);
    if (match === null || PROCESS_TEMPORARY.test(name) || !gone(Number(match[1]))) continue;
    // Only what this user made: a shared temporary directory holds other users' folders too.
    const info = await lstat(path.join(base, name)).catch(() => undefined);
    if (info === undefined || !info.isDirectory() || info.uid !== process.getuid?.()) continue;
    await rm(path.join(base, name), { recursive: true, force: true }).then(
      () => (directories += 1),
      () => undefined,
    );
  }
}

let schemas = 0;
const client = new pg.Client({ connectionString: POSTGRES, connectionTimeoutMillis: 3000 });
try {
  await client.connect();
  const { rows } = await client.query(`SELECT schema_name AS name FROM information_schema.schemata WHERE schema_name LIKE 'redline\\_%'`);
  for (const { name } of rows) {
    const match = SCHEMA.exec(name);
    if (match === null || !gone(Number(match[1]))) continue;
    await client.query(`DROP SCHEMA IF EXISTS "${name}" CASCADE`);
    schemas += 1;
  }
} catch {
  // No PostgreSQL here: the suites that need it say so themselves.
} finally {
  await client.end().catch(() => undefined);
}
if (directories + schemas > 0)
  console.log(`removed what killed test processes left: ${directories} temporary directories, ${schemas} PostgreSQL schemas`);
