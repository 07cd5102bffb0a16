// The generated ledgers bench/scale measures, cached in the benches' cache folder keyed by the run count
// and the code version (a hash of src/ledger/ and of the generator), so that reruns skip the writing.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import type { Ledger } from '../src/ledger/ledger.js';
import { PostgresLedger } from '../src/ledger/postgres/postgres-ledger.js';
import { SqliteLedger } from '../src/ledger/sqlite/sqlite-ledger.js';
import { keySigner } from '../src/ledger/signing-key.js';
import type { Signer } from '../src/ledger/seal-signature.js';
import { benchCache } from './real-overhead.js';
import { scaleRun } from './scale-runs.js';

/** Where the caches of every code version live (in the benches' cache folder): one folder per version, older ones removed. */
export const CACHE_ROOT = path.join(benchCache(), 'scale');
/** PostgreSQL schemas of the cache are named `redline_scale_<version>_<runs>`. */
const SCHEMA_PREFIX = 'redline_scale_';
/** Runs start a minute apart from here, so that start order is index order. */
const FIRST_START = Date.UTC(2025, 0, 1);
/** Imports in flight at once on PostgreSQL (each a transaction of its own). */
const PG_WRITERS = 4;

/** The cache folder of this code version, its signing key, and what generating took. */
export interface ScaleCache {
  readonly version: string;
  readonly dir: string;
  /** The public key (PEM file) the seals are signed with, for `ledger verify --public-key`. */
  readonly publicKey: string;
  readonly signer: Signer;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => path.join(entry.parentPath, entry.name))
    .sort();
}

/** A hash of what decides a generated ledger's bytes and layout: src/ledger/ and the generator. */
async function codeVersion(root: string): Promise<string> {
  const hash = createHash('sha256');
  for (const file of [...(await filesUnder(path.join(root, 'src', 'ledger'))), path.join(root, 'bench', 'scale-runs.ts')]) {
    hash
      .update(path.relative(root, file))
      .update('\0')
      .update(await readFile(file))
      .update('\0');
  }
  return hash.digest('hex').slice(0, 10);
}

/** Opens (or starts) the cache of this code version, removing the caches of other versions. */
export async function openScaleCache({ root, postgres }: { root: string; postgres?: string }): Promise<ScaleCache> {
  const version = await codeVersion(root);
  await mkdir(CACHE_ROOT, { recursive: true });
  for (const entry of await readdir(CACHE_ROOT)) {
    if (entry !== version) await rm(path.join(CACHE_ROOT, entry), { recursive: true, force: true });
  }
  if (postgres !== undefined) await dropSchemas(postgres, (schema) => !schema.startsWith(`${SCHEMA_PREFIX}${version}_`));
  const dir = path.join(CACHE_ROOT, version);
  await mkdir(dir, { recursive: true });
  const privateFile = path.join(dir, 'signing-key.pem');
  const publicKey = path.join(dir, 'signing-key.pub');
  if (!existsSync(privateFile) || !existsSync(publicKey)) {
    const { privateKey } = generateKeyPairSync('ed25519');
    await writeFile(publicKey, createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }));
    await writeFile(privateFile, privateKey.export({ type: 'pkcs8', format: 'pem' }), { mode: 0o600 });
  }
  return { version, dir, publicKey, signer: keySigner(createPrivateKey(await readFile(privateFile))) };
}

async function dropSchemas(postgres: string, stale: (schema: string) => boolean): Promise<void> {
  const client = new pg.Client({ connectionString: postgres });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1', [
      `${SCHEMA_PREFIX}%`,
    ]);
    for (const { nspname } of rows) if (stale(nspname)) await client.query(`DROP SCHEMA ${nspname} CASCADE`);
  } finally {
    await client.end();
  }
}

/** Writes runs 0 … runs-1 through `ledger.import`, `writers` at a time. */
async function writeRuns(ledger: Ledger, { runs, signer, writers }: { runs: number; signer: Signer; writers: number }): Promise<void> {
  let next = 0;
  const writer = async (): Promise<void> => {
    while (next < runs) {
      const index = next;
      next += 1;
      const { run, records } = scaleRun({ index, signer, startedAt: FIRST_START + index * 60_000 });
      await ledger.import(run, records);
    }
  };
  await Promise.all(Array.from({ length: writers }, writer));
}

/**
 * The SQLite ledger of `runs` generated runs: from the cache, or written now (into a partial file, renamed
 * once complete, so that an interrupted bench never leaves a short ledger behind). Returns its path.
 */
export async function sqliteScaleLedger(cache: ScaleCache, runs: number): Promise<{ file: string; generatedSeconds?: number }> {
  const file = path.join(cache.dir, `ledger-${runs}.db`);
  if (existsSync(file)) return { file };
  const partial = path.join(cache.dir, `ledger-${runs}.partial.db`);
  for (const suffix of ['', '-wal', '-shm']) await rm(`${partial}${suffix}`, { force: true });
  const started = performance.now();
  // No fsync per import: the file counts only once it is closed and renamed.
  const ledger = await SqliteLedger.open({ database: partial, synchronous: 'off' });
  try {
    await writeRuns(ledger, { runs, signer: cache.signer, writers: 1 });
  } finally {
    await ledger.close();
  }
  await rename(partial, file);
  return { file, generatedSeconds: (performance.now() - started) / 1000 };
}

/**
 * The PostgreSQL ledger of `runs` generated runs, in schema `redline_scale_<version>_<runs>`: from the
 * cache (a schema whose comment says it is complete), or written now. Returns the schema.
 */
export async function postgresScaleLedger(
  cache: ScaleCache,
  { connection, runs }: { connection: string; runs: number },
): Promise<{ schema: string; generatedSeconds?: number }> {
  const schema = `${SCHEMA_PREFIX}${cache.version}_${runs}`;
  const client = new pg.Client({ connectionString: connection });
  await client.connect();
  try {
    const { rows } = await client.query<{ note: string | null }>(
      "SELECT obj_description(oid, 'pg_namespace') AS note FROM pg_namespace WHERE nspname = $1",
      [schema],
    );
    if (rows[0]?.note === 'complete') return { schema };
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    const started = performance.now();
    const ledger = await PostgresLedger.open({ connection, schema });
    try {
      await writeRuns(ledger, { runs, signer: cache.signer, writers: PG_WRITERS });
    } finally {
      await ledger.close();
    }
    await client.query(`VACUUM ANALYZE ${schema}.records`);
    await client.query(`COMMENT ON SCHEMA ${schema} IS 'complete'`);
    return { schema, generatedSeconds: (performance.now() - started) / 1000 };
  } finally {
    await client.end();
  }
}
