import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken, hashToken } from '../../src/review-app/tokens.js';
import { signInWithFetch } from '../helpers/review-app-session.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// Claims in the reviewer web app, against the real server over a real SQLite queue: one reviewer cannot
// hoard the queue by asking for the next item again and again, and can give an item back.

describe('claims taken in the reviewer web app', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let wide: ReviewServer;
  const ada = generateToken();
  const grace = generateToken();

  before(async () => {
    const dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    for (const index of [1, 2, 3, 4, 5, 6]) await queue.enqueue(brief(`claims-${index}`, { priority: 10 - index }));
    await queue.addReviewer('ada', hashToken(ada));
    await queue.addReviewer('grace', hashToken(grace));
    server = await serveReviewApp({ queue });
    wide = await serveReviewApp({ queue, claimsPerReviewer: 2 });
  });

  after(async () => {
    await server?.close();
    await wide?.close();
    await queue?.close();
  });

  const heldBy = async (reviewer: string): Promise<string[]> =>
    (await queue.list()).flatMap(({ item, claim }) => (claim?.reviewer === reviewer ? [item.id] : []));

  it('holds one live claim per reviewer: asking four times, at once, opens the same item', async () => {
    const session = await signInWithFetch(server, ada);
    const answers = await Promise.all([1, 2, 3, 4].map(() => session.post('/next')));
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [303, 303, 303, 303],
    );
    const held = await heldBy('ada');
    assert.equal(held.length, 1, `ada holds ${held.join(', ')}`);
    const opened = new Set(answers.map((answer) => (answer.headers.get('location') ?? '').replace(/\?.*$/, '')));
    assert.deepEqual([...opened], [`/items/${held[0]}`]);
    const page = await (await session.get(`/items/${held[0]}?held`)).text();
    assert.match(page, /id="held"/);
    assert.match(page, /id="release"/);
  });

  it('releases the claim with the visible release action', async () => {
    const session = await signInWithFetch(server, ada);
    const [held] = await heldBy('ada');
    assert.ok(held !== undefined);
    const released = await session.post('/release');
    assert.equal(released.status, 303);
    assert.deepEqual(await heldBy('ada'), []);
    assert.equal((await queue.get(held))?.claim, undefined);
  });

  it('takes a configured number of claims per reviewer', async () => {
    const session = await signInWithFetch(wide, grace);
    for (let ask = 0; ask < 4; ask += 1) assert.equal((await session.post('/next')).status, 303);
    assert.equal((await heldBy('grace')).length, 2);
    await session.post('/release');
  });
});
