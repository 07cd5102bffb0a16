import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { applyMigrations } from '../../src/db/postgres/apply-migrations.js';
import { postgresTarget } from '../../src/worker/postgres-target.js';
import { WORKER_MIGRATIONS } from '../../src/worker/worker-migrations.js';
import { WorkerStore } from '../../src/worker/worker-store.js';
import { contentHash } from '../../src/workspace/manifest.js';
import { fleetSchema, SERVER } from './fleet-helpers.js';

// Blobs stored whole before blobs were stored in parts stay readable after the migration, and a blob is
// stored whole or not at all.
const fleet = fleetSchema('redline_worker_store');
after(() => fleet.drop());

describe('the fleet store', () => {
  it('keeps the blobs of a store made before blobs were kept in parts, and refuses a blob half stored', async () => {
    const old = Buffer.from('stored whole\n');
    const client = new pg.Client({ connectionString: SERVER });
    await client.connect();
    try {
      const quoted = `"${fleet.schema}"`;
      await applyMigrations(client, fleet.schema, quoted, { ...WORKER_MIGRATIONS, migrations: WORKER_MIGRATIONS.migrations.slice(0, 2) });
      await client.query(`INSERT INTO ${quoted}.worker_blobs (hash, bytes) VALUES ($1, $2)`, [contentHash(old), old]);
    } finally {
      await client.end();
    }
    const store = await WorkerStore.open(postgresTarget(fleet.url));
    try {
      assert.deepEqual(await store.heldBlobs([contentHash(old)]), new Set([contentHash(old)]));
      assert.deepEqual((await store.blobs([contentHash(old)])).get(contentHash(old)), old);
      const parts: Buffer[] = [];
      for await (const part of store.blobParts(contentHash(old))) parts.push(part);
      assert.deepEqual(parts, [old]);
      // A blob whose parts fail midway leaves nothing: no marker that would make the next submitter skip it.
      async function* failing(): AsyncGenerator<Buffer> {
        yield Buffer.from('first part');
        throw new Error('the snapshot changed');
      }
      await assert.rejects(store.putBlob('f'.repeat(64), 20, failing()), /the snapshot changed/);
      assert.deepEqual(await store.heldBlobs(['f'.repeat(64)]), new Set());
      assert.equal(await store.putBlob('e'.repeat(64), 2, [Buffer.from('a'), Buffer.from('b')]), true);
      assert.equal(await store.putBlob('e'.repeat(64), 2, [Buffer.from('a'), Buffer.from('b')]), false);
      const stored: string[] = [];
      for await (const part of store.blobParts('e'.repeat(64))) stored.push(part.toString());
      assert.deepEqual(stored, ['a', 'b']);
    } finally {
      await store.close();
    }
  });
});
