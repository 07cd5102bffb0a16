// The SQLite ledger's size on disk next to its JSONL export, and its durable append rate, on a realistic
// ledger written through the library: `node --import tsx bench/sqlite-layout.ts [RUNS] [DIR]`.
// The runs are made from the example missions' records (`redline demo`), each stretched to 13 records by
// repeating its attempts and decisions; the ledger is written with `synchronous = OFF` (the size does not
// depend on it); then the durable append rate on the same file with `synchronous = FULL`. The seals keep
// the examples' signature bytes, for their size: they do not verify for the new run ids.
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { LedgerRecord } from '../src/ledger/ledger.js';
import type { SqliteDatabase } from '../src/db/sqlite/sqlite-database.js';
import { SqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';

const RECORDS_PER_RUN = 13;
const APPEND_ROUNDS = 7;
const BIN = path.resolve(import.meta.dirname, '../bin/redline.js');

/** The example missions' runs, record by record, from a `redline demo` ledger. */
function templates(dir: string): LedgerRecord[][] {
  const database = path.join(dir, 'demo.db');
  execFileSync(process.execPath, [BIN, 'demo', '--ledger', database], { cwd: dir, stdio: 'ignore' });
  const db = new Database(database, { readonly: true });
  const rows = db.prepare<[], { run_id: string; body: string }>('SELECT run_id, body FROM records ORDER BY run_id, seq').all();
  db.close();
  const runs = new Map<string, LedgerRecord[]>();
  for (const row of rows) runs.set(row.run_id, [...(runs.get(row.run_id) ?? []), JSON.parse(row.body) as LedgerRecord]);
  return [...runs.values()];
}

/** Run `index` of the generated ledger: a template's records under a new id, its middle repeated to 13 records. */
function generated(template: readonly LedgerRecord[], index: number): LedgerRecord[] {
  const runId = randomUUID();
  const first = template[0] as LedgerRecord;
  const middle = template.slice(1, -1);
  const sealed = template[template.length - 1] as LedgerRecord;
  const at = first.at + index * 60_000;
  const body = Array.from({ length: RECORDS_PER_RUN - 2 }, (_, step) => middle[step % middle.length] as LedgerRecord);
  return [first, ...body, sealed].map((record, seq) => ({ ...record, runId, seq, at: at + seq }));
}

async function fileBytes(file: string): Promise<number> {
  const sizes = await Promise.all(
    [file, `${file}-wal`].map((name) =>
      stat(name).then(
        (info) => info.size,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

async function main(): Promise<void> {
  const runs = Number(process.argv[2] ?? 5_000);
  const dir = process.argv[3] ?? (await mkdtemp(path.join(os.tmpdir(), 'redline-layout-')));
  const kept = process.argv[3] !== undefined;
  try {
    const runTemplates = templates(dir);
    const database = path.join(dir, 'ledger.db');
    const ledger = await SqliteLedger.open({ database, synchronous: 'off' });
    for (let index = 0; index < runs; index += 1)
      for (const record of generated(runTemplates[index % runTemplates.length] as LedgerRecord[], index)) await ledger.append(record);
    await ledger.close();
    const jsonl = path.join(dir, 'ledger.jsonl');
    execFileSync(process.execPath, [BIN, 'ledger', 'export', '--format', 'jsonl', '--out', jsonl, '--ledger', database], {
      stdio: 'ignore',
    });
    const [dbBytes, jsonlBytes] = [await fileBytes(database), await fileBytes(jsonl)];

    // Durable appends to the ledger just written (so the index is as deep as a used ledger's), the median of rounds.
    const appender = await SqliteLedger.open({ database, synchronous: 'full' });
    const rates: number[] = [];
    for (let round = 0; round < APPEND_ROUNDS; round += 1) {
      const appendRuns = Array.from({ length: 20 }, (_, index) =>
        generated(runTemplates[index % runTemplates.length] as LedgerRecord[], index),
      );
      const started = performance.now();
      for (const run of appendRuns) for (const record of run) await appender.append(record);
      rates.push((appendRuns.length * RECORDS_PER_RUN * 1000) / (performance.now() - started));
    }
    await appender.close();
    const appendsPerSec = [...rates].sort((a, b) => a - b)[Math.floor(rates.length / 2)] as number;

    // What each durable append writes, free of the disk's noise: the WAL's growth with checkpoints held off.
    const held = new Database(database);
    held.pragma('wal_checkpoint(TRUNCATE)');
    held.pragma('wal_autocheckpoint = 0');
    const writer = await SqliteLedger.open({ database: held as unknown as SqliteDatabase, synchronous: 'full' });
    const walRuns = Array.from({ length: 20 }, (_, index) => generated(runTemplates[index % runTemplates.length] as LedgerRecord[], index));
    for (const run of walRuns) for (const record of run) await writer.append(record);
    const walBytesPerAppend = (await stat(`${database}-wal`)).size / (walRuns.length * RECORDS_PER_RUN);
    await writer.close();

    const kb = (bytes: number): string => `${(bytes / runs / 1024).toFixed(1)} KB/run`;
    console.log(`sqlite-layout: ${runs.toLocaleString('en-US')} runs of ${RECORDS_PER_RUN} records from the example missions`);
    console.log(`  SQLite file        ${(dbBytes / 1e6).toFixed(1).padStart(8)} MB  ${kb(dbBytes)}`);
    console.log(`  JSONL export       ${(jsonlBytes / 1e6).toFixed(1).padStart(8)} MB  ${kb(jsonlBytes)}`);
    console.log(`  ratio SQLite/JSONL ${(dbBytes / jsonlBytes).toFixed(2).padStart(8)}×  (target ≤ 1.3×)`);
    console.log(
      `  durable appends    ${Math.round(appendsPerSec).toLocaleString('en-US').padStart(8)} /s  (synchronous = FULL, one append per call, median of ${APPEND_ROUNDS} rounds)`,
    );
    console.log(`  WAL per append     ${(walBytesPerAppend / 1024).toFixed(1).padStart(8)} KB  (the pages each commit writes)`);
    if (kept) console.log(`  kept in ${dir}`);
  } finally {
    if (!kept) await rm(dir, { recursive: true, force: true });
  }
}

await main();
