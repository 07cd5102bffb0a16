// `workers`: missions per second of a fleet of 1, 2 and 4 `redline worker` processes on this machine, and
// the per-mission overhead of the queue (submit, lease, materialize, resume bookkeeping) against running
// the same missions in one process (`redline run … --concurrency 1`) on the same PostgreSQL ledger.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { main } from '../src/cli/main.js';

const SERVER = 'postgres://postgres@127.0.0.1:5432/test';
const ROOT = path.resolve(import.meta.dirname, '..');
/** A fast command proposer and check: one attempt each, so the figures are the fleet's cost, not the agent's. */
const PROPOSER = `node -e "process.stdout.write(JSON.stringify({files:{'src/answer.txt':'42\\\\n'}}))"`;

export interface WorkersResult {
  readonly missions: number;
  /** Missions per second in one process, one at a time. */
  readonly oneProcess: number;
  /** Missions per second per fleet size (each worker at concurrency 1), from the first worker's start to the last run's seal. */
  readonly fleets: readonly { readonly workers: number; readonly perSecond: number }[];
  /** (1-worker fleet time − one-process time) / missions, in ms. */
  readonly overheadMs: number;
  readonly load: number;
}

/** Drops a fleet's schemas: the ledger's and tables' `schema`, and the job queue's `schema_jobs`. */
export async function dropSchemas(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: SERVER });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`DROP SCHEMA IF EXISTS "${schema}_jobs" CASCADE`);
  } finally {
    await client.end();
  }
}

const quiet = { print: () => undefined, progress: () => undefined };

/** Runs `count` workers of the built CLI until the queue is empty; resolves when the last exits. */
function fleet(url: string, count: number, workdir: string): Promise<void> {
  const one = (index: number): Promise<void> =>
    new Promise((resolve, reject) => {
      // --trust-database: what is measured is the fleet's throughput over the bench's own database, not trust.
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'bin/redline.js'),
          'worker',
          '--postgres',
          url,
          '--trust-database',
          '--until-idle',
          '--workdir',
          path.join(workdir, String(index)),
        ],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      );
      let stderr = '';
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.once('error', reject);
      child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`worker exited ${String(code)}: ${stderr.trim()}`))));
    });
  return Promise.all(Array.from({ length: count }, (_, index) => one(index))).then(() => undefined);
}

export async function workersBench({
  missions = 40,
  fleets: sizes = [1, 2, 4],
}: { missions?: number; fleets?: readonly number[] } = {}): Promise<WorkersResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'redline-bench-workers-'));
  try {
    await mkdir(path.join(dir, 'ws/src'), { recursive: true });
    await writeFile(path.join(dir, 'ws/src/answer.txt'), '0\n');
    const file = path.join(dir, 'mission.json');
    await writeFile(
      file,
      JSON.stringify({
        id: 'bench',
        goal: 'write the answer',
        workspace: 'ws',
        scope: ['src/**'],
        checks: [{ name: 'answer', kind: 'expected-output', command: 'cat src/answer.txt', expected: '42' }],
      }),
    );
    const files = Array.from({ length: missions }, () => file);
    const schemaOf = (name: string): string => `redline_bench_workers_${name}_${randomBytes(3).toString('hex')}`;

    const local = schemaOf('local');
    const started = performance.now();
    await main(['run', ...files, '--concurrency', '1', '--json', '--ledger', `${SERVER}?schema=${local}`, '--proposer', PROPOSER], quiet);
    const oneProcessS = (performance.now() - started) / 1000;
    await dropSchemas(local);

    const fleets: { workers: number; perSecond: number; seconds: number }[] = [];
    for (const workers of sizes) {
      const schema = schemaOf(`fleet${workers}`);
      const url = `${SERVER}?schema=${schema}`;
      await main(['submit', ...files, '--postgres', url, '--proposer', PROPOSER, '--json'], quiet);
      const from = performance.now();
      await fleet(url, workers, path.join(dir, schema));
      const seconds = (performance.now() - from) / 1000;
      fleets.push({ workers, perSecond: missions / seconds, seconds });
      await dropSchemas(schema);
    }
    return {
      missions,
      oneProcess: missions / oneProcessS,
      fleets: fleets.map(({ workers, perSecond }) => ({ workers, perSecond })),
      overheadMs: (((fleets[0]?.seconds ?? 0) - oneProcessS) / missions) * 1000,
      load: os.loadavg()[0] ?? 0,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
