import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken, hashToken } from '../../src/review-app/tokens.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// Sign-in by link, in Chromium, against the real server: a link from another site only asks (login CSRF),
// a forged confirm from another site is refused, the printed start link works once, and a request naming
// a host the server was not started for (DNS rebinding) gets 421.

/** The status of a GET of `route` on `server` with the `Host` header set to `host`. */
function statusWithHost(server: ReviewServer, route: string, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = request({ host: '127.0.0.1', port: server.port, path: route, headers: { Host: host } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    sent.once('error', reject);
    sent.end();
  });
}

describe('signing in to the reviewer web app', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;
  const startToken = generateToken();
  const mallory = generateToken();

  before(async () => {
    const dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    await queue.enqueue(brief('sign-in-1'));
    await queue.addReviewer('mallory', hashToken(mallory));
    server = await serveReviewApp({ queue, startToken, startReviewer: 'ada', startTokenOnce: true });
    // Another site: a page that sends the browser to the app's sign-in link, and one that posts the confirm form itself.
    attacker = createServer((incoming, response) => {
      response.setHeader('Content-Type', 'text/html');
      const link = `${server.url}/sign-in?token=${mallory}`;
      response.end(
        incoming.url === '/post'
          ? `<!doctype html><form method="post" action="${server.url}/sign-in"><input name="token" value="${mallory}"><input name="nonce" value="guessed"><button id="go">go</button></form>`
          : `<!doctype html><a id="go" href="${link}">win a prize</a>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}`;
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await queue?.close();
  });

  it('a link from another site asks before it signs in, and a forged confirm is refused', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${attackerUrl}/`);
      await page.locator('#go').click();
      await page.locator('#confirm').waitFor();
      assert.equal(await page.locator('#confirm-reviewer').innerText(), 'mallory');
      assert.equal((await page.goto(`${server.url}/`))?.status(), 401, 'following the link signed nothing in');
      await page.goto(`${attackerUrl}/post`);
      const [forged] = await Promise.all([page.waitForNavigation(), page.locator('#go').click()]);
      assert.equal(forged?.status(), 403);
      assert.equal((await page.goto(`${server.url}/`))?.status(), 401, 'the forged confirm signed nothing in');
      // The reviewer's own press on the confirm page signs in.
      await page.goto(`${server.url}/sign-in?token=${mallory}`);
      await page.locator('#confirm').click();
      await page.locator('#reviewer').waitFor();
      assert.match(await page.locator('#reviewer').innerText(), /mallory/);
    } finally {
      await context.close();
    }
  });

  it('the start link signs in once', async () => {
    const first = await browser.newContext();
    const second = await browser.newContext();
    try {
      const page = await first.newPage();
      await page.goto(`${server.url}/sign-in?token=${startToken}`);
      await page.locator('#confirm').click();
      await page.locator('#reviewer').waitFor();
      const again = await second.newPage();
      assert.equal((await again.goto(`${server.url}/sign-in?token=${startToken}`))?.status(), 401);
    } finally {
      await first.close();
      await second.close();
    }
  });

  it('answers only the host names it was started for', async () => {
    assert.equal(await statusWithHost(server, '/assets/app.css', `rebound.example:${server.port}`), 421);
    assert.equal(await statusWithHost(server, '/sign-in', `rebound.example:${server.port}`), 421);
    assert.equal(await statusWithHost(server, '/assets/app.css', `localhost:${server.port}`), 200);
    assert.equal(await statusWithHost(server, '/assets/app.css', `127.0.0.1:${server.port}`), 200);
  });
});
