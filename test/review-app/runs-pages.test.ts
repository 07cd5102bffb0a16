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
      });
    await appendRun(ledger, { runId: 'hostile', missionId: `m${HOSTILE}`, at: T0 + 60 * DAY, agentText: HOSTILE });
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
    for (const route of ['/runs', '/runs/hostile', '/runs/live/events', '/runs/hostile/diff?attempt=1&file=x']) {
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
    for (const route of ['/runs', '/runs/hostile']) {
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
