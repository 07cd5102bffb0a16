import assert from 'node:assert/strict';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { tempDir } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { appendRun, HOSTILE, restOfRun } from './runs-fixture.js';

// The runs and reports pages of `redline serve` in a real browser (Debian's Chromium, driven by
// playwright-core) over a real SQLite ledger: the list, a run and the reports, keyboard navigation, hostile
// agent text that never runs, and a running run's page updating itself as records arrive.
// `REDLINE_SCREENSHOTS=docs/figures/runs-app` writes the screenshots docs/runs-app.md shows; without it they
// go to a temporary directory removed with the test process.

const SCREENSHOTS = process.env.REDLINE_SCREENSHOTS ?? (await tempDir('redline-runs-app-screenshots-'));
const DAY = 86_400_000;
const T0 = Date.parse('2026-11-20T09:00:00Z');
const LIVE = { runId: 'live-run', missionId: 'fix-parser', at: T0 + 9 * DAY, running: true } as const;

describe('the runs pages in a browser', () => {
  let dir: string;
  let ledger: SqliteLedger;
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let browser: Browser;
  const token = generateToken();

  before(async () => {
    dir = await tempDir('redline-runs-app-');
    ledger = await SqliteLedger.open({ database: path.join(dir, 'ledger.db'), synchronous: 'off' });
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'queue.db'), synchronous: 'off' });
    const missions = ['fix-parser', 'migrate-billing', 'extract-auth'];
    for (let index = 0; index < 8; index += 1)
      await appendRun(ledger, {
        runId: `run-${index + 1}`,
        missionId: missions[index % 3] as string,
        taskType: index % 2 === 0 ? 'code' : 'migration',
        at: T0 + index * DAY,
        outcome: index % 4 === 3 ? 'failed_with_evidence' : 'complete',
        guards: ['attemptsBudget()', index % 2 === 0 ? 'threshold(0.8)' : 'confirm(2, 0.8)'],
        shadow: index % 3 === 0 ? 'fail' : 'pass',
        ...(index === 7 ? { resolves: 'run-4' } : {}),
      });
    await appendRun(ledger, {
      runId: 'hostile-run',
      missionId: 'agent-text',
      at: T0 + 8 * DAY + 1,
      agentText: HOSTILE,
      guards: [`threshold${HOSTILE}`],
      stopReason: `threshold${HOSTILE}`,
    });
    await appendRun(ledger, LIVE);
    await queue.enqueue(brief('run-4'));
    server = await serveReviewApp({ queue, ledger, startToken: token, startReviewer: 'ada', home: '/runs', livePollMs: 100 });
    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await queue?.close();
    await ledger?.close();
  });

  /** A signed-in page (a context of its own) that records dialogs; sign-in lands on the runs. */
  async function signedIn(): Promise<{ page: Page; dialogs: string[] }> {
    const context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const response = await page.goto(`${server.url}/runs`);
    assert.equal(response?.status(), 401);
    await page.locator('#token').fill(token);
    await page.locator('#token').press('Enter');
    await page.locator('#runs').waitFor();
    return { page, dialogs };
  }

  it('lists the runs newest first, walks them with j/k and opens one with Enter', async () => {
    const { page, dialogs } = await signedIn();
    assert.equal(new URL(page.url()).pathname, '/runs');
    const rows = page.locator('#runs tbody tr');
    assert.equal(await rows.count(), 10);
    assert.match((await rows.nth(0).textContent()) ?? '', /running/);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'runs.png') });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    await page.keyboard.press('k');
    assert.equal(await page.locator('#runs tbody tr.current').getAttribute('data-href'), '/runs/hostile-run');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${server.url}/runs/hostile-run`);
    // The agent's text is on the page as text: markup shown, escapes and bidi controls spelled out, nothing run.
    const text = (await page.locator('main').textContent()) ?? '';
    assert.ok(text.includes('x <script>alert(1)</script> \\x1b[2J \\u{202e}evil\\u{202c} \\u{200b}'));
    for (const raw of ['\u001b', '\u202e', '\u200b']) assert.ok(!text.includes(raw), `no raw ${JSON.stringify(raw)} on the page`);
    assert.equal(await page.locator('main script').count(), 0);
    assert.deepEqual(dialogs, []);
    await page.keyboard.press('q');
    await page.waitForURL(`${server.url}/runs`);
    await page.context().close();
  });

  it('filters the runs by mission and outcome', async () => {
    const { page } = await signedIn();
    await page.locator('#filter-mission').fill('fix-parser');
    await page.locator('#filter-outcome').selectOption('complete');
    await page.locator('#filter-mission').press('Enter');
    await page.waitForURL(/missionId=fix-parser/);
    const hrefs = await page.locator('#runs tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-href')));
    assert.deepEqual(hrefs, ['/runs/run-7', '/runs/run-1']);
    await page.context().close();
  });

  it('shows a run’s timeline, scores, findings by check, seal and links, and walks its steps with j/k', async () => {
    const { page } = await signedIn();
    await page.goto(`${server.url}/runs/run-8`);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'run.png') });
    assert.ok(await page.locator('#score-chart circle').count(), 'two scored attempts');
    assert.equal(await page.locator('#attempt-1 tr[data-change="new"] code').first().textContent(), 'lint');
    assert.equal(await page.locator('#attempt-2 tr[data-change="fixed"] code').first().textContent(), 'lint');
    assert.match((await page.locator('#signature').textContent()) ?? '', /not signed/);
    assert.equal(await page.locator('#links a[href="/runs/run-4"]').count(), 1);
    await page.locator('#attempt-2 details.diffs summary').click();
    await page.locator('#attempt-2 .diff-add').first().waitFor();
    await page.locator('#attempt-2').screenshot({ path: path.join(SCREENSHOTS, 'run-attempt.png') });
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await page.locator('.timeline .current').getAttribute('id'), 'attempt-1');
    await page.goto(`${server.url}/runs/run-4`);
    await page.locator('#review-item').click();
    await page.waitForURL(/\/items\//);
    await page.context().close();
  });

  it('charts outcomes, stop reasons, spend and stop quality, walks the days with j/k and opens a day’s runs with Enter', async () => {
    const { page, dialogs } = await signedIn();
    await page.locator('#reports-of-runs').click();
    await page.waitForURL(`${server.url}/reports`);
    for (const chart of ['#outcomes-chart', '#reasons-chart', '#spend-chart', '#reach-by-reason-chart', '#reach-by-policy-chart'])
      assert.ok(await page.locator(chart).isVisible(), `${chart} is drawn`);
    // Nine days of sealed runs (the running one counts nowhere), one bar each.
    assert.equal(await page.locator('#outcomes tbody tr').count(), 9);
    assert.ok((await page.locator('#outcomes-chart rect').count()) >= 9);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'reports.png'), fullPage: true });
    // The hostile run's stop reason and guard, as text: markup shown, escapes and bidi controls spelled out.
    const text = (await page.locator('main').textContent()) ?? '';
    assert.ok(text.includes('thresholdx <script>alert(1)</script> \\x1b[2J \\u{202e}evil\\u{202c} \\u{200b}'));
    for (const raw of ['\u001b', '\u202e', '\u200b']) assert.ok(!text.includes(raw), `no raw ${JSON.stringify(raw)} on the page`);
    assert.equal(await page.locator('main script').count(), 0);
    assert.deepEqual(dialogs, []);
    await page.keyboard.press('j');
    await page.keyboard.press('j');
    assert.equal(await page.locator('#outcomes tbody tr.current').getAttribute('data-href'), '/runs?from=2026-11-21&to=2026-11-21');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/runs\?from=2026-11-21/);
    const hrefs = await page.locator('#runs tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-href')));
    assert.deepEqual(hrefs, ['/runs/run-2']);
    await page.context().close();
  });

  it('updates a running run’s page as its records arrive, and stops listening after the seal', async () => {
    const { page } = await signedIn();
    await page.goto(`${server.url}/runs/${LIVE.runId}`);
    assert.equal(await page.locator('#outcome').textContent(), 'running');
    assert.equal(await page.locator('#live').count(), 1);
    // The page dispatches `redline:updated` on its document after it swaps in a fresh render. The listener is
    // in place before the first record is appended (an update it missed would leave nothing to wait for), and
    // the wait for it has a timeout.
    await page.evaluate(() => {
      const page = globalThis as unknown as { document: EventTarget; redlineUpdates: number };
      page.redlineUpdates = 0;
      page.document.addEventListener('redline:updated', () => (page.redlineUpdates += 1));
    });
    for (const record of restOfRun(LIVE, 6)) await ledger.append(record);
    await page.waitForFunction(() => (globalThis as unknown as { redlineUpdates: number }).redlineUpdates > 0, undefined, {
      timeout: 30_000,
    });
    await page.locator('#outcome', { hasText: 'complete' }).waitFor();
    assert.equal(await page.locator('#live').count(), 0);
    assert.equal(await page.locator('#seal').count(), 1);
    await page.context().close();
  });
});
