import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { signInWithFetch } from '../helpers/review-app-session.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// A ledger locked by another process: the reviewer web app's write waits for the lock, and meanwhile the
// server keeps answering (the wait happens in short turns off the event loop, not in SQLite's busy wait).

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

describe('the reviewer web app on a locked ledger', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let file: string;
  const token = generateToken();

  before(async () => {
    file = path.join(await tempWorkspace({}), 'redline.db');
    queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off' });
    await queue.enqueue(brief('locked-1'));
    server = await serveReviewApp({ queue, startToken: token, startReviewer: 'ada' });
  });

  after(async () => {
    await server?.close();
    await queue?.close();
  });

  it('serves an asset while a write waits for a lock another process holds, then takes the write', async () => {
    const session = await signInWithFetch(server, token);
    // Another process takes the write lock, says so, and holds it until its stdin closes.
    const holder = spawn(
      process.execPath,
      [
        '-e',
        `const db = new (require('better-sqlite3'))(${JSON.stringify(file)}); db.exec('BEGIN EXCLUSIVE'); console.log('locked');
         process.stdin.resume(); process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); });`,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await once(createInterface({ input: holder.stdout }), 'line')) as [string];
      assert.equal(line, 'locked');
      let claimed = false;
      const claim = session.post('/next').then((response) => {
        claimed = true;
        return response;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(claimed, false, 'the claim waits for the lock');
      const asset = await fetch(`${server.url}/assets/app.css`);
      assert.equal(asset.status, 200);
      assert.equal(claimed, false, 'the asset was served while the claim still waited');
      holder.stdin.end();
      assert.equal((await claim).status, 303);
      assert.equal((await queue.list()).filter(({ claim: held }) => held?.reviewer === 'ada').length, 1);
    } finally {
      holder.stdin.end();
      if (holder.exitCode === null) await once(holder, 'exit');
    }
  });
});
