import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { SqliteReviewQueue } from '../../src/review/sqlite/sqlite-review-queue.js';
import { SECURITY_HEADERS } from '../../src/review-app/review-app.js';
import { serveReviewApp, type ReviewServer } from '../../src/review-app/serve-review-app.js';
import { generateToken } from '../../src/review-app/tokens.js';
import { signInWithFetch, type AppSession } from '../helpers/review-app-session.js';
import { tempDir } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { appendRun, HOSTILE, restOfRun } from './runs-fixture.js';

// The runs pages over the real server and a real SQLite ledger: sign-in, filters, keyset pages, a run's
// timeline, hostile agent text rendered escaped, and a running run's event stream.

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const rowsOf = (page: string): string[] =>
  [...page.matchAll(/<tr data-nav-row data-href="\/runs\/([^"]+)"/g)].map((match) => decodeURIComponent(match[1] as string));

describe('the runs pages', () => {
  let dir: string;
  let ledger: SqliteLedger;
  let queue: SqliteReviewQueue;
  let server: ReviewServer;
  let app: AppSession;
  const token = generateToken();

  before(async () => {
    dir = await tempDir('redline-runs-pages-');
    ledger = await SqliteLedger.open({ database: path.join(dir, 'ledger.db'), synchronous: 'off' });
    queue = await SqliteReviewQueue.open({ database: path.join(dir, 'queue.db'), synchronous: 'off' });
    // 55 runs of mission `bulk`, a day apart from T0; then two of their own.
    for (let index = 0; index < 55; index += 1)
      await appendRun(ledger, {
        runId: `bulk-${String(index).padStart(2, '0')}`,
        missionId: 'bulk',
        taskType: index % 2 === 0 ? 'code' : 'docs',
        at: T0 + index * DAY,
        outcome: index % 5 === 0 ? 'failed_with_evidence' : 'complete',
        shadow: index % 4 === 0 ? 'fail' : 'pass',
      });
    await appendRun(ledger, {
      runId: 'hostile',
      missionId: `m${HOSTILE}`,
      at: T0 + 60 * DAY,
      agentText: HOSTILE,
      guards: ['costBudget()', `threshold${HOSTILE}`],
      stopReason: `threshold${HOSTILE}`,
      shadow: 'fail',
    });
    await appendRun(ledger, { runId: 'second', at: T0 + 61 * DAY, resolves: 'hostile' });
    await appendRun(ledger, { runId: 'live', at: T0 + 62 * DAY, running: true });
    await queue.enqueue(brief('hostile'));
    server = await serveReviewApp({ queue, ledger, startToken: token, startReviewer: 'ada', livePollMs: 20 });
    app = await signInWithFetch(server, token);
  });

  after(async () => {
    await server?.close();
    await ledger?.close();
    await queue?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it('answers a request without a session with the sign-in page, for the list, a run and its events', async () => {
    for (const route of ['/runs', '/runs/hostile', '/runs/live/events', '/runs/hostile/diff?attempt=1&file=x', '/reports']) {
      const response = await fetch(`${server.url}${route}`);
      assert.equal(response.status, 401, route);
      assert.match(await response.text(), /Sign in/);
    }
  });

  it('lists runs newest first with their figures and the security headers', async () => {
    const response = await app.get('/runs');
    assert.equal(response.status, 200);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers.get(name), value);
    const page = await response.text();
    const rows = rowsOf(page);
    assert.equal(rows.length, 50);
    assert.deepEqual(rows.slice(0, 4), ['live', 'second', 'hostile', 'bulk-54']);
    assert.match(page, /<span class="badge running">running<\/span>/);
    // bulk-54's seal: 2 attempts, 90 s, $0.03.
    const bulk = page.slice(page.indexOf('data-href="/runs/bulk-54"'));
    assert.match(bulk, /<td class="num">2<\/td>\s*<td class="num">1m<\/td>\s*<td class="num">\$0\.03<\/td>/);
  });

  it('pages by keyset: the older page starts after the last run shown, and nothing is read twice', async () => {
    const first = await (await app.get('/runs')).text();
    const older = /<a href="([^"]+)" id="older">/.exec(first)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(older !== undefined);
    const second = await (await app.get(older)).text();
    const rows = rowsOf(second);
    assert.equal(rows.length, 8);
    assert.equal(rows.at(-1), 'bulk-00');
    assert.equal(new Set([...rowsOf(first), ...rows]).size, 58);
    assert.doesNotMatch(second, /id="older"/);
    assert.match(second, /id="newest"/);
  });

  it('filters by mission, outcome, task type and start day, and refuses an unknown outcome or a malformed day', async () => {
    const ids = async (query: string): Promise<string[]> => rowsOf(await (await app.get(`/runs?${query}`)).text());
    assert.equal((await ids('missionId=bulk')).length, 50);
    assert.deepEqual(await ids('outcome=failed_with_evidence&missionId=bulk'), [
      'bulk-50',
      'bulk-45',
      'bulk-40',
      'bulk-35',
      'bulk-30',
      'bulk-25',
      'bulk-20',
      'bulk-15',
      'bulk-10',
      'bulk-05',
      'bulk-00',
    ]);
    assert.deepEqual(await ids('taskType=docs&from=2026-11-02&to=2026-11-04'), ['bulk-03', 'bulk-01']);
    assert.deepEqual(await ids('from=2026-11-03&to=2026-11-03'), ['bulk-02']);
    assert.deepEqual(await ids('missionId=nobody'), []);
    assert.equal((await app.get('/runs?outcome=%3Cscript%3E')).status, 400);
    assert.equal((await app.get('/runs?from=yesterday')).status, 400);
  });

  it('answers 404 for a run the ledger does not hold', async () => {
    const response = await app.get('/runs/no-such-run');
    assert.equal(response.status, 404);
    assert.match(await response.text(), /The ledger holds no run <code>no-such-run<\/code>/);
  });

  it('shows a run: findings by check as new, fixed or still failing, scores, inventory, decisions, diff, seal and links', async () => {
    const page = await (await app.get('/runs/second')).text();
    const attempt1 = page.slice(page.indexOf('id="attempt-1"'), page.indexOf('id="attempt-2"'));
    assert.match(attempt1, /<tr data-change="new">\s*<td><code>lint<\/code><\/td>/);
    assert.match(attempt1, /<tr data-change="still_failing">\s*<td><code>tests<\/code><\/td>/);
    const attempt2 = page.slice(page.indexOf('id="attempt-2"'));
    assert.match(attempt2, /<tr data-change="fixed">\s*<td><code>lint<\/code><\/td>/);
    assert.match(attempt2, /class="diff-add"><code>\+.*trim/);
    assert.match(page, /<svg id="score-chart" role="img" aria-label="Scores by attempt: 1: 0\.400, 2: 0\.900"/);
    assert.match(page, /<code>tests<\/code>: 2 case\(s\) · 1 fail, 1 pass/);
    assert.match(page, /Guard <code>progress<\/code>: no_progress → <strong>failed_with_evidence<\/strong>/);
    assert.match(page, /Judge: <strong>accept<\/strong> demand_passed/);
    assert.match(page, /id="signature" class="signature-unsigned">\s*Signature:\s*not signed/);
    assert.match(page, /id="chain">hash chain verifies \(8 records\)/);
    assert.match(page, /Resolves run <a href="\/runs\/hostile">hostile<\/a>/);
    const hostile = await (await app.get('/runs/hostile')).text();
    assert.match(hostile, /Resolved by\s*<a href="\/runs\/second">second<\/a>/);
    assert.match(hostile, /<a id="review-item" href="\/items\/[^"]+">/);
  });

  it('renders an agent’s markup, terminal escapes, bidi controls and zero-width characters escaped and spelled out', async () => {
    for (const route of ['/runs', '/runs/hostile', '/reports']) {
      const page = await (await app.get(route)).text();
      for (const raw of ['\u001b', '\u202e', '\u202c', '\u200b', '<script>'])
        assert.ok(!page.includes(raw), `${route}: no raw ${JSON.stringify(raw)} reaches the page`);
      assert.match(page, /x &lt;script&gt;alert\(1\)&lt;\/script&gt; \\x1b\[2J \\u\{202e\}evil\\u\{202c\} \\u\{200b\}/);
    }
    const page = await (await app.get('/runs/hostile')).text();
    // In the transcript, a finding, a file name, a test name and the guard's detail.
    assert.match(page, /data-stream="transcript">I will edit the parser\.x &lt;script&gt;/);
    assert.match(page, /<pre class="text">still &quot; a&quot;x &lt;script&gt;/);
    assert.match(page, /<h4><code>src\/parsex &lt;script&gt;alert\(1\)&lt;\/script&gt; \\x1b\[2J \\u\{202e\}evil/);
    assert.match(page, /parse splitsx &lt;script&gt;/);
    const file = `src/parse${HOSTILE}.ts`;
    const diff = await app.get(`/runs/hostile/diff?attempt=2&file=${encodeURIComponent(file)}`);
    assert.equal(diff.headers.get('content-type'), 'text/plain; charset=utf-8');
    const text = await diff.text();
    for (const raw of ['\u001b', '\u202e', '\u200b']) assert.ok(!text.includes(raw), `no raw ${JSON.stringify(raw)} in the diff`);
    // The diff names the file as git quotes it: its bytes in octal.
    assert.match(text, /\+\+\+ "b\/src\/parsex <script>alert\(1\)<\/script> \\033\[2J \\342\\200\\256evil/);
  });

  it('reports outcomes, stop reasons and spend per day, with the numbers in tables and each day opening its runs', async () => {
    const response = await app.get('/reports');
    assert.equal(response.status, 200);
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) assert.equal(response.headers.get(name), value);
    const page = await response.text();
    // 57 sealed runs over 62 days (the running one counts nowhere): one row a day, days without runs as zeros.
    assert.match(
      page,
      /<svg id="outcomes-chart" role="img" aria-label="Outcomes of 57 sealed run\(s\) per day, stacked: complete, complete_noop, blocked, failed_with_evidence;/,
    );
    const outcomes = page.slice(page.indexOf('<table id="outcomes"'), page.indexOf('</table>', page.indexOf('<table id="outcomes"')));
    assert.equal(outcomes.split('<tr data-nav-row').length - 1, 62);
    // bulk-00 failed, on the first day; each cell in the outcomes' order.
    assert.match(
      outcomes,
      /<tr data-nav-row data-href="\/runs\?from=2026-11-01&amp;to=2026-11-01">\s*<th scope="row"><a href="[^"]+">2026-11-01<\/a><\/th>\s*<td class="num">1<\/td>\s*<td class="num">0<\/td>\s*<td class="num">0<\/td>\s*<td class="num">0<\/td>\s*<td class="num">1<\/td>\s*<td class="num">\$0\.03<\/td>/,
    );
    // Day 56 to 60 had no runs.
    assert.match(outcomes, /2026-12-27<\/a><\/th>\s*<td class="num">0<\/td>/);
    assert.match(page, /<svg id="reasons-chart" role="img"/);
    assert.match(page, /<svg id="spend-chart" role="img" aria-label="Spend per day, \$1\.48 in all/);
    // From the runs page and back, with the filters kept (but the outcome, which the reports break down).
    const runs = await (await app.get('/runs?missionId=bulk&outcome=complete')).text();
    assert.match(runs, /<a href="\/reports\?missionId=bulk" id="reports-of-runs">/);
    assert.match(page, /<a href="\/reports" id="reports-link">Reports<\/a>/);
  });

  it('reports observed against true reach per stop reason and per policy, as charts and tables', async () => {
    const page = await (await app.get('/reports')).text();
    const cells = (id: string, key: string): string[] => {
      const table = page.slice(page.indexOf(`<table id="${id}"`));
      const row = table.slice(table.indexOf(`<th scope="row"><code>${key}</code></th>`));
      return [...row.slice(0, row.indexOf('</tr>')).matchAll(/<td class="num">([^<]*)<\/td>/g)].map((match) => match[1] as string);
    };
    // 44 bulk runs complete and the second run: 33 of the 44 judged passed their shadow checks, 11 did not.
    assert.deepEqual(cells('reach-by-reason', 'demand_passed'), ['45', '45/45 (100.0%)', '33/44 (75.0%)', '11', '0', '0']);
    // 11 failed, 8 of them on a candidate the shadow checks passed: missed stops.
    assert.deepEqual(cells('reach-by-reason', 'no_progress'), ['11', '0/11 (0.0%)', '8/11 (72.7%)', '0', '8', '0']);
    assert.deepEqual(cells('reach-by-policy', '(budgets only)'), ['56', '45/56 (80.4%)', '41/55 (74.5%)', '11', '8', '0']);
    assert.match(page, /<svg id="reach-by-reason-chart" role="img"/);
    // Every run scored candidates a1 and b2 the same (0.4 and 0.9): no noise, from two scores of each of 57 runs.
    assert.match(
      page,
      /<p id="judge-noise">\s*Judge noise: σ ≈ 0\.0000 from 114 scores of 2 candidate\(s\) scored more than once \(112 degrees of freedom\)/,
    );
    // The hostile run's stop reason and policy (its guard after the runtime's budget), escaped.
    const hostile =
      'thresholdx &lt;script&gt;alert\\(1\\)&lt;\\/script&gt; \\\\x1b\\[2J \\\\u\\{202e\\}evil\\\\u\\{202c\\} \\\\u\\{200b\\}';
    assert.match(page, new RegExp(`<table id="reach-by-reason"[\\s\\S]*<code>${hostile}</code>`));
    assert.match(page, new RegExp(`<table id="reach-by-policy"[\\s\\S]*<code>${hostile}</code>`));
    assert.match(page, new RegExp(`<title>${hostile} · observed reach 100\\.0% of 1 run\\(s\\)</title>`));
  });

  it('filters the reports by mission, task type and start day, and refuses a malformed day', async () => {
    const summary = async (query: string): Promise<string> =>
      /<p id="reach-summary">\s*([^<]*?)\s*<\/p>/.exec(await (await app.get(`/reports?${query}`)).text())?.[1]?.replace(/\s+/g, ' ') ?? '';
    assert.match(await summary('taskType=docs'), /^Observed reach 22\/27 /);
    assert.match(await summary('missionId=bulk&from=2026-11-01&to=2026-11-05'), /^Observed reach 4\/5 /);
    assert.match(await summary(`missionId=${encodeURIComponent(`m${HOSTILE}`)}`), /^Observed reach 1\/1 /);
    assert.match(await (await app.get('/reports?missionId=nobody')).text(), /<p class="notice" id="empty">No sealed run matches\.<\/p>/);
    assert.equal((await app.get('/reports?to=2026-13-45')).status, 400);
  });

  it('streams a running run’s new records as server-sent events, ending after the seal', async () => {
    const page = await (await app.get('/runs/live')).text();
    const events = /id="live"[^>]*data-events="([^"]+)"/.exec(page)?.[1]?.replaceAll('&amp;', '&');
    assert.equal(events, '/runs/live/events?count=6');
    const response = await app.get(events);
    assert.equal(response.headers.get('content-type'), 'text/event-stream');
    assert.equal(response.headers.get('content-security-policy'), SECURITY_HEADERS['Content-Security-Policy']);
    for (const record of restOfRun({ runId: 'live', at: T0 + 62 * DAY }, 6)) await ledger.append(record);
    const text = await response.text();
    assert.match(text, /event: records\ndata: \{"count":8,"sealed":true\}/);
    const sealed = await (await app.get('/runs/live')).text();
    assert.doesNotMatch(sealed, /id="live"/);
    assert.match(sealed, /<dd id="outcome">complete<\/dd>/);
  });
});
