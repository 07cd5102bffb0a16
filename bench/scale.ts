// History at scale: `ledger verify`, `replay --policy` (confirm-2) and `ledger export` over ledgers of
// N generated runs (about 13 records each), on SQLite and PostgreSQL, each in a child process running the
// built CLI so that its peak memory is its own; side by side with a plain streaming read of the same rows.
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { openScaleCache, postgresScaleLedger, sqliteScaleLedger } from './scale-ledgers.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CLI = path.join(ROOT, 'bin', 'redline.js');
const MAX_RSS = path.join(ROOT, 'bench', 'max-rss.mjs');
const READ = path.join(ROOT, 'bench', 'scale-read.mjs');

/**
 * The bench's options from the command line after its name: `--runs 5000,50000` (the sizes, at least
 * two: the ratios compare the largest with the smallest), `--backends sqlite,postgres`, `--postgres URL`.
 */
export function scaleOptions(argv: readonly string[]): { runs: number[]; backends: BackendName[]; postgres?: string } {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      runs: { type: 'string', default: '5000,50000' },
      backends: { type: 'string', default: 'sqlite,postgres' },
      postgres: { type: 'string' },
    },
    strict: true,
  });
  const runs = values.runs.split(',').map(Number);
  if (runs.length < 2 || runs.some((count) => !Number.isInteger(count) || count < 1))
    throw new TypeError(`Expected --runs as two or more positive whole numbers separated by commas, got "${values.runs}"`);
  const backends = values.backends.split(',');
  const unknown = backends.find((backend) => backend !== 'sqlite' && backend !== 'postgres');
  if (unknown !== undefined) throw new TypeError(`Expected --backends from sqlite,postgres, got "${unknown}"`);
  return { runs, backends: backends as BackendName[], ...(values.postgres === undefined ? {} : { postgres: values.postgres }) };
}

/** What one child process took: wall time from spawn to exit, and its own peak resident set size. */
export interface Measured {
  readonly seconds: number;
  /** Peak RSS in bytes; undefined when the child died before reporting it (killed, out of memory). */
  readonly peakBytes?: number;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** The last line the child wrote to stderr when it failed. */
  readonly failure?: string;
}

export type Operation = 'verify' | 'replay' | 'export' | 'read';
export type BackendName = 'sqlite' | 'postgres';

export interface ScaleSize {
  readonly runs: number;
  /** Records read by the plain read (every record of every run). */
  readonly records: number;
  readonly operations: Readonly<Record<Operation, Measured>>;
  /** Bytes of the JSONL the timed `ledger export` wrote. */
  readonly exportBytes: number;
  /** SQLite only: the ledger file (with any -wal). */
  readonly fileBytes?: number;
}

export interface ScaleBackend {
  readonly backend: BackendName;
  readonly sizes: readonly ScaleSize[];
  /** `replay` at the largest N under `NODE_OPTIONS=--max-old-space-size=256`. */
  readonly smallHeapReplay: Measured;
}

export interface ScaleBenchResult {
  readonly backends: readonly ScaleBackend[];
  readonly cacheDir: string;
  /** Seconds spent writing ledgers not found in the cache (0 when every one was cached). */
  readonly generatedSeconds: number;
  readonly load: { readonly before: number; readonly after: number };
}

/** Runs `args` with node, fd 3 a pipe for max-rss.mjs's report; stdout to `stdoutFile` (else discarded). */
function measure({ args, env, stdoutFile }: { args: readonly string[]; env?: NodeJS.ProcessEnv; stdoutFile?: string }): Promise<Measured> {
  const out = stdoutFile === undefined ? 'ignore' : openSync(stdoutFile, 'w');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', MAX_RSS, ...args], {
    cwd: ROOT,
    env: env ?? process.env,
    stdio: ['ignore', out, 'pipe', 'pipe'],
  });
  let report = '';
  let stderr = '';
  child.stdio[3]?.on('data', (chunk: Buffer) => (report += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (exitCode, signal) => {
      const seconds = (performance.now() - started) / 1000;
      if (typeof out === 'number') closeSync(out);
      const kib = report === '' ? undefined : (JSON.parse(report) as { maxRssKiB: number }).maxRssKiB;
      const failed = exitCode !== 0;
      // Out of memory, V8 prints its reason and then a native stack: the reason is the line worth keeping.
      const lines = stderr.trim().split('\n');
      const lastLine = lines.find((line) => line.includes('FATAL ERROR')) ?? lines.at(-1);
      resolve({
        seconds,
        ...(kib === undefined ? {} : { peakBytes: kib * 1024 }),
        exitCode,
        signal,
        ...(failed && lastLine !== undefined ? { failure: lastLine } : {}),
      });
    });
  });
}

function expectOk(what: string, measured: Measured): Measured {
  if (measured.exitCode !== 0) throw new Error(`${what} failed (exit ${measured.exitCode ?? measured.signal}): ${measured.failure ?? ''}`);
  return measured;
}

/** confirm-2 as docs/stop-rules.md names it: stop when two attempts in a row score ≥ 0.8. */
const CONFIRM_2 = { name: 'confirm-2', guards: [{ confirm: { k: 2, bar: 0.8 } }] };

/**
 * Measures each backend at each N (smallest first): `ledger verify --public-key`, `replay --policy`
 * (confirm-2), `ledger export --format jsonl` and the plain read, one child process each, in that
 * order; then `replay` at the largest N with a 256 MB heap. Ledgers come from the cache when present.
 */
export async function scaleBench({
  runs = [5_000, 50_000],
  backends = ['sqlite', 'postgres'],
  postgres = 'postgres://postgres@127.0.0.1:5432/test',
}: { runs?: readonly number[]; backends?: readonly BackendName[]; postgres?: string } = {}): Promise<ScaleBenchResult> {
  const before = os.loadavg()[0] as number;
  const cache = await openScaleCache({ root: ROOT, ...(backends.includes('postgres') ? { postgres } : {}) });
  const policy = path.join(cache.dir, 'confirm-2.json');
  writeFileSync(policy, JSON.stringify(CONFIRM_2));
  const exported = path.join(cache.dir, 'export.jsonl');
  let generatedSeconds = 0;
  const results: ScaleBackend[] = [];
  for (const backend of backends) {
    const sizes: ScaleSize[] = [];
    let largest: string | undefined;
    for (const count of [...runs].sort((a, b) => a - b)) {
      let location: string;
      let readArgs: string[];
      let fileBytes: number | undefined;
      if (backend === 'sqlite') {
        const ledger = await sqliteScaleLedger(cache, count);
        generatedSeconds += ledger.generatedSeconds ?? 0;
        location = ledger.file;
        readArgs = [READ, 'sqlite', ledger.file];
        fileBytes = statSync(ledger.file).size + (statSync(`${ledger.file}-wal`, { throwIfNoEntry: false })?.size ?? 0);
      } else {
        const ledger = await postgresScaleLedger(cache, { connection: postgres, runs: count });
        generatedSeconds += ledger.generatedSeconds ?? 0;
        location = `${postgres}?schema=${ledger.schema}`;
        readArgs = [READ, 'postgres', postgres, ledger.schema];
      }
      largest = location;
      const label = `${backend} at ${count} runs`;
      const verify = expectOk(
        `verify ${label}`,
        await measure({ args: [CLI, 'ledger', 'verify', '--public-key', cache.publicKey, '--ledger', location] }),
      );
      const replay = expectOk(
        `replay ${label}`,
        await measure({ args: [CLI, 'replay', '--policy', policy, '--json', '--ledger', location] }),
      );
      const exportRun = expectOk(
        `export ${label}`,
        await measure({ args: [CLI, 'ledger', 'export', '--format', 'jsonl', '--ledger', location], stdoutFile: exported }),
      );
      const exportBytes = statSync(exported).size;
      const readOut = path.join(cache.dir, 'read.json');
      const read = expectOk(`plain read ${label}`, await measure({ args: readArgs, stdoutFile: readOut }));
      const { rows } = JSON.parse(readFileSync(readOut, 'utf8')) as { rows: number };
      sizes.push({
        runs: count,
        records: rows,
        operations: { verify, replay, export: exportRun, read },
        exportBytes,
        ...(fileBytes === undefined ? {} : { fileBytes }),
      });
    }
    const smallHeapReplay = await measure({
      args: [CLI, 'replay', '--policy', policy, '--json', '--ledger', largest as string],
      env: { ...process.env, NODE_OPTIONS: '--max-old-space-size=256' },
    });
    results.push({ backend, sizes, smallHeapReplay });
  }
  // The export of the largest ledger is the size of the ledger again: not worth keeping between runs.
  rmSync(exported, { force: true });
  return { backends: results, cacheDir: cache.dir, generatedSeconds, load: { before, after: os.loadavg()[0] as number } };
}
