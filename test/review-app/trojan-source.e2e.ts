import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import type { ReviewItem } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// Trojan Source in the reviewer web app, in Chromium: a file name with a right-to-left override, a code
// line whose bidi controls make a comment look like code, zero-width characters and U+061C in the task
// and a finding. What the page shows must be what a program reads: each one spelled out, the line marked.

const NAME = 'src/\u202egnp.js';
const LINE = 'if (role != "user\u202e \u2066// admin\u2069 \u2066") { grant(); }';

describe('hidden characters in the reviewer web app', () => {
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let browser: Browser;
  let item: ReviewItem;
  const token = generateToken();

  before(async () => {
    const dir = await tempWorkspace({});
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'redline.db'), synchronous: 'off' });
    item = (
      await queue.enqueue(
        brief('trojan-1', {
          task: 'make\u200b it\u2060 pass\ufeff',
          finalOutput: { files: { [NAME]: `const ok = 1;\n${LINE}\n` } },
          failing: [{ check: 'tests', status: 'fail', reasonCodes: ['test.failed'], message: 'expected \u061c1, got 2' }],
        }),
      )
    ).item as ReviewItem;
    server = await serveReviewApp({ queue, startToken: token, startReviewer: 'ada' });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await queue?.close();
  });

  it('spells out bidi controls and zero-width characters in names, code, the task and findings, and marks the line', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${server.url}/sign-in`);
      await page.locator('#token').fill(token);
      await page.locator('#token').press('Enter');
      await page.locator('#reviewer').waitFor();
      await page.goto(`${server.url}/items/${item.id}`);
      const text = await page.locator('body').innerText();
      assert.doesNotMatch(text, /[\u061c\u200b-\u200f\u202a-\u202e\u2060\u2066-\u2069\ufeff]/u, 'a hidden character reached the page');
      assert.ok(text.includes('src/\\u{202e}gnp.js'), 'the file name is spelled out');
      assert.ok(!text.includes('sj.png'), 'the file name is not shown reversed');
      assert.ok(text.includes('"user\\u{202e} \\u{2066}// admin\\u{2069} \\u{2066}"'), 'the code line is spelled out');
      assert.ok(text.includes('make\\u{200b} it\\u{2060} pass\\u{feff}'), 'the task is spelled out');
      assert.ok(text.includes('expected \\u{61c}1, got 2'), 'the finding is spelled out');
      const marked = page.locator('li.hidden-chars');
      assert.equal(await marked.count(), 1, 'exactly the line with hidden characters is marked');
      assert.match(await marked.innerText(), /⚠ hidden characters/);
      assert.match(await marked.innerText(), /grant\(\)/);
    } finally {
      await context.close();
    }
  });
});
