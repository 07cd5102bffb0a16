import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Brief } from '../../src/core/brief.js';
import { finding, type Check } from '../../src/core/check.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import type { ReviewItem } from '../../src/review/review-queue.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken, hashToken } from '../../src/review-app/tokens.js';
import { MAX_LINES } from '../../src/review-app/output-view.js';
import { unifiedDiff } from '../../src/workspace/unified-diff.js';
import { tempDir, tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';

// The reviewer web app in a real browser (Debian's Chromium, driven by playwright-core) over a real SQLite
// ledger and review queue. One browser for every case; each reviewer has a context (cookies) of their own, and grace
// one signed-in page for every case she acts in.
// `REDLINE_SCREENSHOTS=docs/figures/review-app` writes the screenshots docs/review-app.md shows; without it
// they go to a temporary directory removed with the test process.

const SCREENSHOTS = process.env.REDLINE_SCREENSHOTS ?? (await tempDir('redline-review-app-screenshots-'));

/** Each vector sets `window.__pwned` and opens a dialog if it ever runs. */
const XSS = [
  '<script>window.__pwned = 1; alert("script")</script>',
  '<img src=x onerror="window.__pwned = 2; alert(\'img\')">',
  '<a href="javascript:window.__pwned = 3; alert(\'link\')">click me</a>',
  '<svg onload="window.__pwned = 4; alert(\'svg\')"></svg>',
  '"><script>window.__pwned = 5</script><p title=\'',
  '<iframe srcdoc="<script>parent.__pwned = 6</script>"></iframe>',
].join('\n');

const failingCheck = (message: string): Check => {
  const check: Check = {
    name: 'tests',
    stage: 'fast',
    tier: 'demand',
    required: true,
    run: async () => [finding(check, 'fail', ['test.failed:adds'], message)],
  };
  return check;
};

const ADD_BEFORE = [
  '/** Adds two numbers. */',
  'export function add(a: number, b: number): number {',
  '  // Subtracts: the bug the run was asked to fix.',
  '  return a - b;',
  '}',
  '',
  'export const sum = (values: number[]): number => values.reduce(add, 0);',
  '',
].join('\n');
const ADD_AFTER = ADD_BEFORE.replace('  // Subtracts: the bug the run was asked to fix.\n  return a - b;', '  return a + b;');
const ADD_TEST = [
  "import { test } from 'node:test';",
  "import assert from 'node:assert/strict';",
  "import { add } from './add.js';",
  '',
  "test('adds', () => assert.equal(add(1, 2), 3));",
  '',
].join('\n');

/** A file of `lines` lines, and the same with every other line of its first 500 changed and the script line put in. */
function diffedFiles(lines: number): { before: string; after: string } {
  const before = Array.from({ length: lines }, (_, line) => `export const value${line} = ${line};`);
  const after = before.map((text, line) => (line < 500 && line % 2 === 0 ? text.replace(/= \d+;/, `= ${line + 1}; // changed`) : text));
  after.splice(10, 0, '<script>window.__pwned = 7; alert("diff")</script>');
  return { before: `${before.join('\n')}\n`, after: `${after.join('\n')}\n` };
}

/** A 2,000-line unified diff. */
function bigDiff(): string {
  const lines = ['diff --git a/src/big.ts b/src/big.ts', '--- a/src/big.ts', '+++ b/src/big.ts', '@@ -1,1000 +1,1000 @@'];
  for (let line = 0; line < 998; line += 1) lines.push(`-const line${line} = ${line};`, `+const line${line} = ${line + 1};`);
  return `${lines.join('\n')}\n`;
}

/** A reviewer's browser context (its cookies) and page, with the dialogs and console messages the page has shown. */
interface Reviewer {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly dialogs: string[];
  readonly console: string[];
}

describe('the reviewer web app in a browser', () => {
  let dir: string;
  let ledger: SqliteLedger;
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let browser: Browser;
  let attacker: Server;
  const tokens = { ada: generateToken(), grace: generateToken() };
  const items: Record<string, ReviewItem> = {};

  before(async () => {
    dir = await tempWorkspace({});
    const file = path.join(dir, 'redline.db');
    ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
    queue = await SqliteReviewQueue.open({ database: file, synchronous: 'off', backpressure: { capacity: 100 } });
    // Eight rejections already given (through the library): two more verdicts fill the tuner's window of 10.
    for (let index = 0; index < 8; index += 1) {
      const { item } = await queue.enqueue(brief(`earlier-${index}`, { priority: 50 }));
      await queue.verdict(item?.id as string, { reviewer: 'seed', decision: 'reject', label: 'logic_error' });
    }
    // Real runs, sealed in the ledger and handed to the queue: two plain ones first in review order, then an evil one.
    // plain-1 changes files of a real workspace: its brief diffs them against the run's snapshot.
    const run = async (
      id: string,
      priority: number,
      value: string,
      goal: string,
      message: string,
      workspace?: { before: Record<string, string>; files: Record<string, string | null> },
    ): Promise<void> => {
      const mission = defineMission({
        id,
        goal,
        priority,
        budgets: { maxAttempts: 2 },
        stopPolicy: { guards: [] },
        ...(workspace === undefined ? {} : { workspace: await tempWorkspace(workspace.before) }),
      });
      await runMission({
        mission,
        proposer: functionProposer(({ attempt }) =>
          workspace === undefined ? { value: `${value}\n// attempt ${attempt}` } : { files: workspace.files },
        ),
        checks: [failingCheck(message)],
        ledger,
        handoff: { queue },
      });
    };
    await run('plain-1', 10, '', 'make add() pass', 'adds failed: expected 3, got 4', {
      before: { 'src/add.ts': ADD_BEFORE, 'src/legacy-add.js': 'module.exports = (a, b) => a - b;\n' },
      files: { 'src/add.ts': ADD_AFTER, 'src/add.test.ts': ADD_TEST, 'src/legacy-add.js': null },
    });
    await run('plain-2', 9, 'def add(a, b):\n    return a - b  # wrong', 'port add to Python', 'add(1, 2) == -1');
    await run('evil-run', 8, XSS, `Summarize ${XSS}`, `expected safe output, got ${XSS}`);
    const [plain1, plain2, evilRun] = (await queue.list()).map((entry) => entry.item);
    Object.assign(items, { plain1, plain2, evilRun });
    const enqueue = async (each: Brief): Promise<ReviewItem> => (await queue.enqueue(each)).item as ReviewItem;
    items.evilFiles = await enqueue(
      brief('evil-files', {
        priority: 7,
        task: XSS,
        cutoffReason: XSS,
        lastError: XSS,
        finalOutput: {
          files: { [`src/${XSS.split('\n')[1]}.ts`]: XSS, 'page.html': XSS },
          value: { html: XSS },
          baseline: { [`src/${XSS.split('\n')[1]}.ts`]: `${XSS.split('\n')[0]}\n`, 'page.html': null },
        },
        failing: [{ check: XSS, status: 'fail', reasonCodes: [XSS], message: XSS, location: { file: XSS, line: 1 } }],
      }),
    );
    items.big = await enqueue(
      brief('big', { priority: 6, finalOutput: { files: { 'changes.diff': bigDiff() }, value: `${'x'.repeat(99)}\n`.repeat(10_486) } }),
    );
    const app = diffedFiles(600);
    items.diffed = await enqueue(
      brief('diffed', {
        priority: 5,
        finalOutput: {
          files: { 'src/app.ts': app.after, 'src/new.ts': ADD_TEST, 'db/drop.sql': null, 'logo.png': 'PNG' },
          baseline: {
            'src/app.ts': app.before,
            'src/new.ts': null,
            'db/drop.sql': '-- drop the old table\ndrop table users;\n',
            'logo.png': { omitted: 'binary', bytes: 1234 },
          },
        },
      }),
    );
    for (const index of [1, 2, 3]) items[`spare${index}`] = await enqueue(brief(`spare-${index}`, { priority: 1 }));
    await queue.addReviewer('ada', hashToken(tokens.ada));
    await queue.addReviewer('grace', hashToken(tokens.grace));
    server = await serveReviewApp({ queue, ledger });
    attacker = createServer((request, response) => {
      const target = decodeURIComponent(request.url?.slice(1) ?? '');
      response.setHeader('Content-Type', 'text/html');
      response.end(
        `<!doctype html><form method="post" action="${target}"><input name="decision" value="approve"><input name="label" value="unclear"><input name="csrf" value="guessed"><button id="go">win a prize</button></form>`,
      );
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
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
    await new Promise((resolve) => attacker?.close(resolve));
    await queue?.close();
    await ledger?.close();
  });

  /** A browser context (its own cookies) with a page that records dialogs and console messages. */
  async function reviewerPage(): Promise<Reviewer> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const dialogs: string[] = [];
    const console: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    page.on('console', (message) => console.push(message.text()));
    return { context, page, dialogs, console };
  }

  /** Signs in by filling the token into the sign-in form and pressing Enter. */
  async function signIn(page: Page, token: string): Promise<void> {
    const response = await page.goto(`${server.url}/`);
    assert.equal(response?.status(), 401);
    // Filled into the token field itself, in one input event rather than a key event a character: keys sent before
    // `autofocus` takes effect (a loaded machine) would be lost.
    const field = page.locator('#token');
    await field.fill(token);
    await field.press('Enter');
    await page.locator('#reviewer').waitFor();
  }

  let graceSession: Reviewer | undefined;
  /**
   * grace's page, signed in once and shared by the cases that act as grace, on the queue page as a fresh sign-in
   * leaves it, with no dialog or console message counted yet. A session of its own per case would cost a browser
   * context (a renderer) and a sign-in each, and prove nothing more: signing in is proven by the first case and ada's.
   */
  async function asGrace(): Promise<Reviewer> {
    if (graceSession === undefined) {
      graceSession = await reviewerPage();
      await signIn(graceSession.page, tokens.grace);
    } else {
      await graceSession.page.goto(`${server.url}/`);
      await graceSession.page.locator('#reviewer').waitFor();
    }
    graceSession.dialogs.length = 0;
    graceSession.console.length = 0;
    return graceSession;
  }

  const itemUrl = (item: ReviewItem): string => `${server.url}/items/${item.id}`;

  it('refuses every request without a token, and a wrong token', async () => {
    const { context, page } = await reviewerPage();
    try {
      for (const url of [`${server.url}/`, itemUrl(items.plain1 as ReviewItem), `${server.url}/runs/x/evidence`]) {
        const response = await page.goto(url);
        assert.equal(response?.status(), 401, url);
        assert.equal(await page.locator('#token').count(), 1, 'the sign-in form, nothing of the queue');
        assert.doesNotMatch(await page.content(), /make add\(\) pass/);
      }
      const posted = await context.request.post(`${server.url}/next`, { form: { csrf: 'x' }, headers: { Origin: server.url } });
      assert.equal(posted.status(), 403);
      await page.fill('#token', 'not-a-token-anyone-holds');
      await page.press('#token', 'Enter');
      await page.waitForSelector('.error');
      assert.match(await page.locator('.error').innerText(), /signs no reviewer in/);
      const cookies = await context.cookies();
      assert.deepEqual(
        cookies.filter((cookie) => cookie.name === 'redline_review_session'),
        [],
      );
    } finally {
      await context.close();
    }
  });

  it('approves one item and rejects another with a label using only the keyboard; the verdicts name the reviewer and move the tuner', async () => {
    const { context, page } = await reviewerPage();
    try {
      await signIn(page, tokens.ada);
      const cookie = (await context.cookies()).find(({ name }) => name === 'redline_review_session');
      assert.deepEqual([cookie?.httpOnly, cookie?.sameSite], [true, 'Strict']);
      assert.equal(await page.locator('#attempt-limit').innerText(), '5');
      await page.screenshot({ path: path.join(SCREENSHOTS, 'queue.png'), fullPage: false });

      // n: the next item (the highest priority) is claimed for ada and its brief opens.
      await Promise.all([page.waitForURL(itemUrl(items.plain1 as ReviewItem)), page.keyboard.press('n')]);
      assert.match(await page.locator('#standing').innerText(), /Claimed by you/);
      assert.match(await page.locator('#task').innerText(), /make add\(\) pass/);
      await page.screenshot({ path: path.join(SCREENSHOTS, 'brief.png'), fullPage: false });
      await page.locator('#output').screenshot({ path: path.join(SCREENSHOTS, 'brief-diff.png') });
      // The run changed files of its workspace: each is shown as a diff against the run's snapshot.
      assert.deepEqual(await page.locator('ol.diff[aria-label="diff of src/add.ts"] li:is(.diff-add, .diff-del)').allInnerTexts(), [
        '-  // Subtracts: the bug the run was asked to fix.',
        '-  return a - b;',
        '+  return a + b;',
      ]);
      assert.deepEqual(await page.locator('ol.diff[aria-label="diff of src/legacy-add.js"] li.diff-del').allInnerTexts(), [
        '-module.exports = (a, b) => a - b;',
      ]);

      // a without a label submits nothing: the label is required.
      await page.keyboard.press('a');
      assert.equal(page.url(), itemUrl(items.plain1 as ReviewItem));
      assert.equal((await queue.get(items.plain1?.id as string))?.verdict, undefined);

      // 5 (unclear), a: approved; the next item opens.
      await page.keyboard.press('5');
      await Promise.all([page.waitForURL(`${itemUrl(items.plain2 as ReviewItem)}?after=${items.plain1?.id}`), page.keyboard.press('a')]);
      assert.match(await page.locator('#after').innerText(), /Approved/);
      // 1 (code_error), c and a comment, Escape, r: rejected.
      await page.keyboard.press('1');
      await page.keyboard.press('c');
      await page.keyboard.type('subtracts instead of adding');
      await page.keyboard.press('Escape');
      await Promise.all([page.waitForURL((url) => url.search === `?after=${items.plain2?.id}`), page.keyboard.press('r')]);
      assert.match(await page.locator('#after').innerText(), /Rejected/);

      const first = (await queue.get(items.plain1?.id as string))?.verdict;
      const second = (await queue.get(items.plain2?.id as string))?.verdict;
      assert.deepEqual([first?.decision, first?.label, first?.reviewer], ['approve', 'unclear', 'ada']);
      assert.deepEqual(
        [second?.decision, second?.label, second?.reviewer, second?.comment],
        ['reject', 'code_error', 'ada', 'subtracts instead of adding'],
      );
      // 1 approval in the last 10 verdicts: below 40%, so the tuner lowers the attempt limit, in the journal.
      assert.equal(await queue.currentLimit(), 4);
      assert.equal(await page.locator('#attempt-limit').innerText(), '4');
      const journal = (await queue.journal()).map((row) => JSON.parse(row.body) as { type: string; data: Record<string, unknown> });
      const tail = journal.slice(-3);
      assert.deepEqual(
        tail.map(({ type, data }) => [type, data.reviewer ?? data.to]),
        [
          ['verdict', 'ada'],
          ['verdict', 'ada'],
          ['limit_change', 4],
        ],
      );
      assert.equal((await queue.verifyJournal()).ok, true);

      // e: the run's evidence, from the ledger: attempts, findings, the seal, a chain that verifies.
      await page.goto(itemUrl(items.plain2 as ReviewItem));
      await Promise.all([page.waitForURL(/\/evidence$/), page.keyboard.press('e')]);
      assert.match(await page.locator('#chain').innerText(), /Hash chain verifies/);
      assert.match(await page.locator('#seal').innerText(), /failed_with_evidence/);
      assert.match(await page.locator('main').innerText(), /add\(1, 2\) == -1/);
      // Signing out releases what ada still holds (the item the last verdict claimed).
      const held = (await queue.list()).filter((entry) => entry.claim?.reviewer === 'ada');
      assert.equal(held.length, 1);
      await page.goto(`${server.url}/`);
      await Promise.all([page.waitForURL(/\/sign-in$/), page.getByRole('button', { name: 'Sign out' }).click()]);
      assert.equal((await queue.get(held[0]?.item.id as string))?.status, 'queued');
    } finally {
      await context.close();
    }
  });

  it('renders script tags, event-handler attributes and javascript: links from a run as text; no script runs', async () => {
    // Any console message from here on (asGrace empties the list; a CSP violation, an error) is a failure.
    const { page, dialogs, console } = await asGrace();
    for (const url of [
      `${server.url}/`,
      itemUrl(items.evilRun as ReviewItem),
      itemUrl(items.evilFiles as ReviewItem),
      `${server.url}/runs/${items.evilRun?.runId}/evidence`,
    ]) {
      const response = await page.goto(url);
      assert.equal(response?.status(), 200, url);
      assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self'/);
      await page.mouse.click(5, 5);
      assert.equal(await page.evaluate('window.__pwned'), undefined, url);
      assert.equal(await page.locator('script').count(), 1, 'only the app’s own shortcut script');
      assert.equal(await page.locator('[onerror], [onload], iframe, svg, img').count(), 0, url);
      assert.equal(await page.locator('a[href^="javascript:"]').count(), 0, url);
    }
    await page.goto(itemUrl(items.evilFiles as ReviewItem));
    assert.match(await page.locator('#task').innerText(), /<script>window.__pwned = 1; alert\("script"\)<\/script>/);
    assert.match(await page.locator('#output').innerText(), /<img src=x onerror="window.__pwned = 2; alert\('img'\)">/);
    assert.match(await page.locator('#output').innerText(), /<a href="javascript:window.__pwned = 3/);
    await page.goto(itemUrl(items.evilRun as ReviewItem));
    assert.match(await page.locator('#last-error').innerText(), /<svg onload=/);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(
      console.filter((line) => !line.includes('favicon')),
      [],
    );
  });

  it('refuses a forged cross-site verdict POST, from another site and from another port of this one', async () => {
    const { context, page } = await asGrace();
    const target = encodeURIComponent(`${itemUrl(items.spare1 as ReviewItem)}/verdict`);
    const port = (attacker.address() as AddressInfo).port;
    for (const origin of [`http://localhost:${port}`, `http://127.0.0.1:${port}`]) {
      await page.goto(`${origin}/${target}`);
      const [response] = await Promise.all([page.waitForNavigation(), page.click('#go')]);
      assert.equal(response?.status(), 403, origin);
      assert.equal((await queue.get(items.spare1?.id as string))?.verdict, undefined, origin);
    }
    // From this origin with the session cookie but without the form's CSRF token: refused too.
    const forged = await context.request.post(`${itemUrl(items.spare1 as ReviewItem)}/verdict`, {
      form: { decision: 'approve', label: 'unclear' },
      headers: { Origin: server.url },
    });
    assert.equal(forged.status(), 403);
    assert.equal((await queue.get(items.spare1?.id as string))?.verdict, undefined);
  });

  it('counts a double-submitted verdict once', async () => {
    const { context, page } = await asGrace();
    const before = (await queue.stats()).verdicts.total;
    const spare = items.spare2 as ReviewItem;
    await page.goto(itemUrl(spare));
    await page.selectOption('#label', 'format_issue');
    await page.dblclick('button[data-key="a"]');
    // Two submissions: the browser may abort the first one's navigation for the second's; wait for where it lands.
    await page.waitForURL(/after=/).catch(async (error: unknown) => {
      if (!/ERR_ABORTED|frame was detached/.test(String(error))) throw error;
      await page.waitForURL(/after=/);
    });
    // And the same form posted again, as a browser's resubmit would.
    const again = await context.request.post(`${itemUrl(spare)}/verdict`, {
      form: { decision: 'approve', label: 'format_issue', csrf: await page.locator('input[name="csrf"]').first().inputValue() },
      headers: { Origin: server.url },
      maxRedirects: 0,
    });
    assert.equal(again.status(), 303);
    assert.equal((await queue.stats()).verdicts.total, before + 1);
    const verdicts = (await queue.journal())
      .map((row) => JSON.parse(row.body) as { type: string; data: { itemId?: string } })
      .filter((entry) => entry.type === 'verdict' && entry.data.itemId === spare.id);
    assert.equal(verdicts.length, 1);
  });

  it('never gives two reviewers the same item, shows claims, and releases them on sign-out', async () => {
    const ada = await reviewerPage();
    const grace = await asGrace();
    try {
      await signIn(ada.page, tokens.ada);
      await Promise.all([ada.page.waitForURL(/\/items\//), ada.page.keyboard.press('n')]);
      await Promise.all([grace.page.waitForURL(/\/items\//), grace.page.keyboard.press('n')]);
      const adaItem = ada.page.url();
      assert.notEqual(adaItem, grace.page.url());
      await grace.page.goto(adaItem);
      assert.match(await grace.page.locator('#standing').innerText(), /Claimed by ada until .* left\): only they can decide it now/);
      assert.equal(await grace.page.locator('button[data-key="a"]').isDisabled(), true);
      await grace.page.goto(`${server.url}/`);
      assert.match(await grace.page.locator('#queue').innerText(), /claimed by ada \(\d+m left\)/);
      await Promise.all([ada.page.waitForURL(/\/sign-in$/), ada.page.getByRole('button', { name: 'Sign out' }).click()]);
      await grace.page.goto(adaItem);
      assert.match(await grace.page.locator('#standing').innerText(), /Not claimed/);
      assert.equal(await grace.page.locator('button[data-key="a"]').isDisabled(), false);
    } finally {
      await ada.context.close();
    }
  });

  it('cuts a 2,000-line diff and a 1 MB output on the server, with links to the whole, and the page loads at once', async (t) => {
    const { context, page } = await asGrace();
    const response = await page.goto(itemUrl(items.big as ReviewItem));
    const html = (await response?.text()) ?? '';
    // Evaluated as text: the test compiles without the DOM's types.
    const timing = (await page.evaluate(
      '(() => { const [navigation] = performance.getEntriesByType("navigation"); return { load: navigation.loadEventEnd }; })()',
    )) as { load: number };
    t.diagnostic(`brief with a 2,000-line diff and a 1 MB value: ${html.length} bytes of HTML, loaded in ${Math.round(timing.load)} ms`);
    assert.ok(html.length < 400_000, `the page stays small: ${html.length} bytes`);
    const listings = page.locator('ol.listing');
    assert.equal(await listings.count(), 2);
    for (const index of [0, 1]) assert.ok((await listings.nth(index).locator('li').count()) <= MAX_LINES);
    assert.equal(await page.locator('ol.diff li.diff-add').first().innerText(), '+const line0 = 1;');
    const links = page.locator('.truncated a');
    assert.equal(await links.count(), 2);
    const whole = await context.request.get(new URL((await links.nth(0).getAttribute('href')) ?? '', server.url).toString());
    assert.equal(whole.headers()['content-type'], 'text/plain; charset=utf-8');
    assert.equal((await whole.text()).split('\n').length - 1, 2_000);
    const value = await context.request.get(new URL((await links.nth(1).getAttribute('href')) ?? '', server.url).toString());
    assert.equal((await value.body()).length, 1_048_600);
    // The page answers input at once: a key press reaches the shortcut script.
    await page.keyboard.press('3');
    assert.equal(await page.locator('#label').inputValue(), 'format_issue');
  });

  it('shows each changed file as a diff against the file before the run: marked rows, highlighted code, agent text as text, cut with a link to the whole diff', async () => {
    const { context, page, dialogs } = await asGrace();
    await page.goto(itemUrl(items.diffed as ReviewItem));
    const listing = (label: string) => page.locator(`ol.listing.diff[aria-label="${label}"]`);
    // A new file is all added, a deleted one all removed: its `-- comment` line too, which reads `--- …` in the diff.
    const classes = async (label: string): Promise<string[]> =>
      listing(label)
        .locator('li')
        .evaluateAll((rows) => rows.map((row) => row.className));
    assert.deepEqual(await classes('diff of src/new.ts'), [
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-hunk',
      ...ADD_TEST.split('\n')
        .slice(0, -1)
        .map(() => 'diff-add'),
    ]);
    assert.deepEqual(await classes('diff of db/drop.sql'), [
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-meta',
      'diff-hunk',
      'diff-del',
      'diff-del',
    ]);
    assert.equal(await listing('diff of db/drop.sql').locator('li.diff-del').first().innerText(), '--- drop the old table');
    // The changed file: context, removed and added rows, its code highlighted after the sign.
    const app = listing('diff of src/app.ts');
    assert.equal(await app.locator('li.diff-del').first().innerText(), '-export const value0 = 0;');
    assert.equal(await app.locator('li.diff-add').first().innerText(), '+export const value0 = 1; // changed');
    assert.equal(await app.locator('li.diff-context').first().innerText(), ' export const value1 = 1;');
    assert.equal(await app.locator('li.diff-add .tok-keyword').first().innerText(), 'export');
    assert.equal(await app.locator('li.diff-add .tok-comment').first().innerText(), '// changed');
    // The script line of the agent's file is a row of text; nothing of it runs.
    assert.equal(await app.locator('li.diff-add', { hasText: '<script>window.__pwned = 7; alert("diff")</script>' }).count(), 1);
    assert.equal(await page.locator('script').count(), 1, 'only the app’s own shortcut script');
    assert.equal(await page.evaluate('window.__pwned'), undefined);
    assert.deepEqual(dialogs, []);
    // Cut at MAX_LINES rows; the link serves the whole diff as plain text, and the other links each side.
    assert.equal(await app.locator('li').count(), MAX_LINES);
    const section = page.locator('#output .truncated', { hasText: 'diff of src/app.ts' });
    const whole = await context.request.get(new URL((await section.locator('a').getAttribute('href')) ?? '', server.url).toString());
    assert.equal(whole.headers()['content-type'], 'text/plain; charset=utf-8');
    const { before, after } = diffedFiles(600);
    const expected = unifiedDiff([{ file: 'src/app.ts', before: Buffer.from(before), after: Buffer.from(after) }]).toString('utf8');
    assert.equal(await whole.text(), expected);
    assert.ok(expected.split('\n').length > MAX_LINES + 100, 'the diff is longer than the page shows');
    const plain = async (name: string): Promise<string> => {
      const link = page.locator('.file-links', { has: page.locator('a[href$="file=src%2Fapp.ts"]') }).getByRole('link', { name });
      return (await context.request.get(new URL((await link.getAttribute('href')) ?? '', server.url).toString())).text();
    };
    assert.deepEqual([await plain('before the run'), await plain('the file now')], [before, after]);
    // A file whose baseline the brief left out is shown whole, saying why.
    assert.match(await page.locator('#output').innerText(), /logo\.png\s+Shown whole: the file before the run \(1,234 bytes\) is binary\./);
    // No diff and no file before the run where the brief has none: a new file, the binary, an item without a baseline.
    const status = async (url: string): Promise<number> => (await context.request.get(`${server.url}${url}`)).status();
    const diffed = `/items/${items.diffed?.id}`;
    assert.deepEqual(
      [
        await status(`${diffed}/output?file=src%2Fnew.ts&before`),
        await status(`${diffed}/diff?file=logo.png`),
        await status(`${diffed}/diff?file=__proto__`),
        await status(`/items/${items.spare3?.id}/diff?file=src%2Fa.ts`),
      ],
      [404, 404, 404, 404],
    );
    // An item enqueued without a baseline still shows its files whole.
    await page.goto(itemUrl(items.spare3 as ReviewItem));
    assert.equal(await page.locator('ol.diff').count(), 0);
    assert.equal(await page.locator('ol.listing[aria-label="file src/a.ts"]').count(), 1);
  });

  it('highlights code, labels every form control, and writes the screenshots', async () => {
    const { page } = await asGrace();
    for (const url of [`${server.url}/`, itemUrl(items.spare3 as ReviewItem)]) {
      await page.goto(url);
      const unlabelled = await page.$$eval('select, textarea, input:not([type="hidden"])', (controls) =>
        controls
          .filter((control) => (control as unknown as { labels: { length: number } | null }).labels?.length === 0)
          .map((control) => control.outerHTML),
      );
      assert.deepEqual(unlabelled, [], url);
    }
    assert.equal(await page.locator('.tok-keyword').first().innerText(), 'export', 'src/a.ts is highlighted');
    for (const name of ['queue.png', 'brief.png', 'brief-diff.png'])
      assert.ok((await stat(path.join(SCREENSHOTS, name))).size > 10_000, name);
  });
  it('accepts a filter-rule suggestion from the status bar; the rule catches the next matching item and its journal entry verifies', async () => {
    const { context, page } = await asGrace();
    // The eight seeded rejections carry logic_error: the status bar suggests a rule for it.
    const suggestion = page.locator('#suggestions li[data-label="logic_error"]');
    assert.match(await suggestion.innerText(), /add an automatic filter rule for logic_error/);
    await suggestion.getByRole('link', { name: 'Make it a rule' }).click();
    await page.locator('#rule-form').waitFor();
    assert.match(await page.locator('#proposal').innerText(), /of the last \d+ item\(s\) people labelled logic_error match/);
    assert.equal(await page.locator('#rule-stopReason').inputValue(), 'budget_attempts', 'filled in from the labelled items');
    // The reviewer narrows it with a text the labelled items had, and makes it reject.
    await page.fill('#rule-pattern', 'Flaky clock');
    await page.check('input[name="action"][value="reject"]');
    await page.fill('#rule-comment', 'the clock fixture is known flaky: <b>not</b> the agent');
    await page.screenshot({ path: path.join(SCREENSHOTS, 'filter-rule.png'), fullPage: false });
    const form = Object.fromEntries(
      await page.$$eval('#rule-form input, #rule-form select, #rule-form textarea', (controls) =>
        (controls as unknown as { name: string; value: string; type?: string; checked?: boolean }[])
          .filter((control) => control.type !== 'radio' || control.checked === true)
          .map((control) => [control.name, control.value]),
      ),
    ) as Record<string, string>;
    await page.click('#add-rule');
    await page.locator('#added').waitFor();
    // The same form posted again (a double submit) is the same rule.
    const again = await context.request.post(`${server.url}/filters`, { form, headers: { Origin: server.url }, maxRedirects: 0 });
    assert.equal(again.status(), 303);
    assert.match(
      await page.locator('#rule-r1').innerText(),
      /r1\s+enabled\s+logic_error\s+reject\s+stop budget_attempts · text "Flaky clock"\s+0\s+grace/,
    );
    assert.equal((await queue.filterRules()).length, 1);

    const caught = await queue.enqueue(brief('flaky-1', { lastError: 'tests: flaky clock skew of 3 ms' }));
    assert.equal(caught.caught?.rule.id, 'r1');
    assert.equal(caught.caught?.verdict.reviewer, 'filter:r1');
    assert.equal((await queue.get(caught.item?.id ?? ''))?.status, 'decided', 'it never waited for a person');
    const waiting = await queue.enqueue(brief('steady-1', { lastError: 'tests: expected 2, got 3' }));
    assert.equal(waiting.caught, undefined);
    await page.reload();
    assert.equal(await page.locator('#rule-r1 .caught').innerText(), '1');

    const entries = (await queue.journal()).map((row) => JSON.parse(row.body) as { type: string; data: { by?: string; event?: string } });
    assert.deepEqual(
      entries.filter((entry) => entry.type === 'filter_rule').map((entry) => [entry.data.event, entry.data.by]),
      [['added', 'grace']],
    );
    assert.equal((await queue.verifyJournal()).ok, true);

    await page.getByRole('button', { name: 'Disable r1' }).click();
    await page.locator('#rule-r1.disabled').waitFor();
    assert.equal((await queue.enqueue(brief('flaky-2', { lastError: 'flaky clock again' }))).caught, undefined);
    assert.equal((await queue.verifyJournal()).ok, true);
    await page.screenshot({ path: path.join(SCREENSHOTS, 'filter-rules.png'), fullPage: false });
  });
});
