import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { backends, type OpenedQueue, type RecycledQueue } from './backends.js';
import { brief } from './fixtures.js';

const hash = (token: string): string => createHash('sha256').update(token).digest('hex');

// The queue's reviewers (named, with the hash of their token) and sign-out, on every backend.
for (const backend of backends) {
  describe(`reviewers and sign-out (${backend.name})`, () => {
    const opened: { close(): Promise<void> }[] = [];
    after(async () => {
      for (const storage of opened) await storage.close();
      await backend.dropRecycled();
    });
    /** Fresh storage, for a case that reopens the queue. */
    const open = async (now = () => 1_000): Promise<OpenedQueue> => {
      const storage = await backend.open({ _internal: { now } });
      opened.push(storage);
      return storage;
    };
    /** Storage as a fresh open leaves it (recycled), for a case that needs only the queue. */
    const openRecycled = async (now = () => 1_000): Promise<RecycledQueue> => {
      const storage = await backend.openRecycled({ _internal: { now } });
      opened.push(storage);
      return storage;
    };

    test('a reviewer is found by the hash of their token; a new token for the name revokes the old one', async () => {
      const { queue, reopen } = await open();
      await queue.addReviewer('ada', hash('first'));
      await queue.addReviewer('grace', hash('second'));
      assert.equal(await queue.reviewerByToken(hash('first')), 'ada');
      assert.equal(await queue.reviewerByToken(hash('second')), 'grace');
      assert.equal(await queue.reviewerByToken(hash('nobody')), undefined);
      await queue.addReviewer('ada', hash('third'));
      assert.equal(await queue.reviewerByToken(hash('first')), undefined);
      assert.equal(await queue.reviewerByToken(hash('third')), 'ada');
      if (reopen !== undefined) {
        const other = await reopen();
        assert.equal(await other.reviewerByToken(hash('third')), 'ada', 'stored with the queue, not in this process');
      }
    });

    test('malformed names and hashes are refused', async () => {
      const { queue } = await openRecycled();
      await assert.rejects(queue.addReviewer('', hash('x')), /Expected the reviewer to be a non-empty string/);
      await assert.rejects(queue.addReviewer('ada', 'plain-token'), /Expected a token hash of 64 hex digits, got "plain-token"/);
      await assert.rejects(queue.reviewerByToken('short'), /Expected a token hash/);
    });

    test("sign-out releases the reviewer's live claims, and only theirs", async () => {
      const { queue } = await openRecycled();
      for (const runId of ['r1', 'r2', 'r3']) await queue.enqueue(brief(runId));
      const mine = await queue.claim('ada');
      const also = await queue.claim('ada');
      const theirs = await queue.claim('grace');
      assert.ok(mine !== undefined && also !== undefined && theirs !== undefined);
      assert.equal(await queue.releaseClaims('ada'), 2);
      assert.equal((await queue.get(mine.item.id))?.status, 'queued');
      assert.equal((await queue.get(theirs.item.id))?.status, 'claimed');
      assert.equal((await queue.stats()).claimed, 1);
      assert.equal(await queue.releaseClaims('ada'), 0);
      const next = await queue.claim('grace');
      assert.equal(next?.item.id, mine.item.id, 'a released item is claimable again at once');
    });
  });
}
