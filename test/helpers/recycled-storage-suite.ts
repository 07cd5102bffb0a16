import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Dump } from './storage-dump.js';

// Storage handed out again to the cases that need only a ledger or a queue (test/ledger/backends.ts,
// test/review/backends.ts) must be what fresh storage is: the suite test/*/recycled-storage.test.ts run.

/** Recycled storage, open on whatever it holds. */
export interface Recycled {
  readonly location?: unknown;
  close(): Promise<void>;
}

/** One backend's storage, as the suite sees it. */
export interface RecyclingBackend<Opened extends Recycled> {
  /** 'postgres' hands the same schema out again. */
  readonly name: string;
  /** A dump of what a fresh open leaves, its storage thrown away afterwards. */
  freshDump(): Promise<Dump>;
  openRecycled(): Promise<Opened>;
  /** Deletes the storage kept for {@link openRecycled}. */
  dropRecycled(): Promise<void>;
  /** Leaves a row in every table. */
  fill(opened: Opened): Promise<void>;
  dump(location: Opened['location']): Promise<Dump> | Dump;
}

/**
 * Fills recycled storage and gives it back, then checks that the storage handed out next dumps as fresh
 * storage does: a case cannot tell the two apart.
 */
export function recycledStorageSuite<Opened extends Recycled>(title: string, backend: RecyclingBackend<Opened>): void {
  describe(title, () => {
    after(() => backend.dropRecycled());

    it('opens as fresh storage opens, even after a case left a row in every table', async () => {
      const expected = await backend.freshDump();

      const used = await backend.openRecycled();
      try {
        await backend.fill(used);
        const filled = (await backend.dump(used.location)).rows as Record<string, unknown[]>;
        assert.deepEqual(
          Object.keys(filled).filter((table) => filled[table]?.length === 0),
          [],
          'every table holds a row before the storage goes back',
        );
      } finally {
        await used.close();
      }

      const again = await backend.openRecycled();
      try {
        // PostgreSQL hands the emptied schema out again; SQLite copies the migrated file anew.
        if (backend.name === 'postgres') assert.equal(again.location, used.location, 'the same schema, reused');
        assert.deepEqual(await backend.dump(again.location), expected);
      } finally {
        await again.close();
      }
    });
  });
}
