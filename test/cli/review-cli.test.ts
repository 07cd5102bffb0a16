import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import type { Brief } from '../../src/core/brief.js';
import type { ReviewQueueOptions } from '../../src/review/config.js';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import type { ReviewEntry, ReviewItem } from '../../src/review/review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { redline, ROOT, runChild, spawnRedline } from './redline.js';

// Seeds review queues through the library, then runs the CLI in-process against them: a SQLite file and
// the local PostgreSQL. One spawned command checks what a shell sees of an error.
const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
const schema = `redline_review_cli_${process.pid}`;

// Every command names its ledger; colors only where a test asks for them, even on a terminal.
for (const name of ['REDLINE_LEDGER', 'NO_COLOR']) delete process.env[name];
process.env.FORCE_COLOR = '0';

/** `redline ARGS` with colors forced on, as `FORCE_COLOR=1 redline ARGS` would run. */
async function withColors(args: readonly string[]): ReturnType<typeof redline> {
  process.env.FORCE_COLOR = '1';
  try {
    return await redline(args);
  } finally {
    process.env.FORCE_COLOR = '0';
  }
}

/** Enqueues `briefs` in order into the queue at `location` and returns their items. */
async function seed(location: string, briefs: readonly Brief[], options: ReviewQueueOptions = {}): Promise<ReviewItem[]> {
  const queue = await openReviewQueue(location, options);
  try {
    const items: ReviewItem[] = [];
    for (const each of briefs) {
      const { item } = await queue.enqueue(each, each.priority === 5 ? { tags: ['draft'] } : {});
      if (item !== undefined) items.push(item);
    }
    return items;
  } finally {
    await queue.close();
  }
}

// An agent that tries to clear the screen, recolor it, return the cursor and reverse the text.
const EVIL = 'fix it\x1b[2J\x1b[31m\rAPPROVED\u202egnp.exe\x9b1m';
const evilBrief = (runId: string): Brief =>
  brief(runId, {
    task: EVIL,
    priority: 3,
    lastError: 'tests: \x1b[32mall green\x1b[0m',
    finalOutput: {
      files: { 'src/evil.ts': 'const ok = 1;\nconsole.log("\x1b]0;owned\x07");\n', 'src/old.ts': null },
      value: 'done\x1b[1A',
    },
  });

/** Five queued items: priorities 1, 5, 3 (the untrusted one), 5, 0. */
async function seedFive(db: string): Promise<ReviewItem[]> {
  return seed(db, [
    brief('run-low', { priority: 1 }),
    brief('run-high-1', { priority: 5 }),
    evilBrief('run-evil'),
    brief('run-high-2', { priority: 5 }),
    brief('run-zero'),
  ]);
}

/** Nothing an agent wrote may reach the terminal raw: no escape, no carriage return, no C1 control, no bidi override. */
function assertNoRawControls(text: string): void {
  const raw = [...text].filter((char) => ['\x1b', '\r', '\x07', '\x9b', '\u202e'].includes(char));
  assert.deepEqual(raw, [], `raw control character in ${JSON.stringify(text)}`);
}

const ESC = '\x1b';
/** `text` without redline's own SGR codes (bold, red, green, reset). */
const withoutOwnColors = (text: string): string =>
  ['[1m', '[31m', '[32m', '[0m'].reduce((rest, code) => rest.replaceAll(`${ESC}${code}`, ''), text);

const dbIn = async (): Promise<string> => path.join(await tempWorkspace({}), 'redline.db');

/**
 * A mission that ends unverified after 3 attempts, as examples/summary-semantic-only does, but whose judge is a
 * shell printf: a run costs no node start per check.
 */
async function unverifiedMission(): Promise<string> {
  const dir = await tempWorkspace({ 'attempts.json': JSON.stringify(['one', 'two', 'three'].map((value) => ({ value }))) });
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'summary',
      goal: 'summarize the incident',
      budgets: { maxAttempts: 3 },
      checks: [{ name: 'quality', kind: 'score', command: `printf '{"score":0.5,"findings":[]}'`, required: false, pass: 0.9 }],
      stopPolicy: { guards: [] },
      proposer: { kind: 'replay', file: 'attempts.json' },
    }),
  );
  return file;
}

after(async () => {
  const client = new pg.Client(PG_URL);
  await client.connect();
  await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await client.end();
});

describe('redline review', () => {
  it('lists the queue in review order (priority, then age) as a table, with agent text escaped', async () => {
    const db = await dbIn();
    const [low, high1, evil, high2, zero] = (await seedFive(db)).map((item) => item.id) as [string, string, string, string, string];
    const list = await redline(['review', 'list', '--ledger', db]);
    assert.equal(list.code, 0, list.stderr);
    assertNoRawControls(list.stdout);
    const rows = list.stdout.trim().split('\n');
    assert.match(rows[0] ?? '', /^item\s+priority\s+age\s+attempts\s+verification\s+tags\s+status\s+cutoff reason\s+task$/);
    assert.deepEqual(
      rows.slice(2, 7).map((row) => row.split(/\s+/)[0]),
      [high1, high2, evil, low, zero],
    );
    assert.match(
      rows[2] ?? '',
      /\s5\s+\d+s\s+5\s+unverified\s+draft\s+queued\s+budget_attempts: 5 of 5 attempts used\s+fix the failing test of run-high-1$/,
    );
    // Escaped, then cut to the column's width.
    assert.match(
      rows[4] ?? '',
      /\s3\s+\d+s\s+5\s+unverified\s+-\s+queued\s+budget_attempts: 5 of 5 attempts used\s+fix it\\x1b\[2J\\x1b\[31m\\rAPPROVED\\u\{202e\}gnp\.exe\\x9…$/,
    );
    assert.match(rows.at(-1) ?? '', /^5 of 5 item\(s\) shown · capacity 50 · mode normal · /);

    const json = await redline(['review', 'list', '--limit', '2', '--json', '--ledger', db]);
    assert.equal(json.code, 0, json.stderr);
    assertNoRawControls(json.stdout);
    assert.deepEqual(
      json.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as ReviewEntry).item.id),
      [high1, high2],
    );
    assert.equal((await redline(['review', 'list', '--limit', '-1', '--ledger', db])).code, 2);
    const all = (await redline(['review', 'list', '--json', '--ledger', db])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ReviewEntry);
    assert.equal(all.find((entry) => entry.item.id === evil)?.item.task, EVIL, 'JSON keeps the exact text, escaped');

    const fresh = await dbIn();
    assert.equal((await redline(['review', 'settings', '--ledger', fresh])).code, 0, 'settings may create the queue');
    const empty = await redline(['review', 'list', '--ledger', fresh]);
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stdout, /^queue empty\n0 of 0 item\(s\) shown/);
  });

  it("shows an item's brief: task, highlighted output, cutoff reason, last error, attempts, and where the raw trace is", async () => {
    const db = await dbIn();
    const evil = (await seedFive(db))[2] as ReviewItem;
    const show = await redline(['review', 'show', evil.id, '--ledger', db]);
    assert.equal(show.code, 0, show.stderr);
    assertNoRawControls(show.stdout);
    const text = show.stdout;
    assert.match(text, new RegExp(`^item ${evil.id} · queued\nrun run-evil · priority 3 · attempts 5 · verification unverified\n`));
    assert.match(text, /\ntask\n {2}fix it\\x1b\[2J\\x1b\[31m\\rAPPROVED\\u\{202e\}gnp\.exe\\x9b1m\n/);
    assert.match(text, /\ncutoff reason {2}budget_attempts: 5 of 5 attempts used\n/);
    assert.match(text, /\nlast error {2}tests: \\x1b\[32mall green\\x1b\[0m\n/);
    assert.match(
      text,
      /\nfinal output\n {2}\+\+\+ src\/evil\.ts\n {2}\+ const ok = 1;\n {2}\+ console\.log\("\\x1b\]0;owned\\x07"\);\n {2}--- src\/old\.ts \(deleted\)\n {2}=== value\n {2}\+ done\\x1b\[1A\n/,
    );
    assert.match(text, new RegExp(`\nraw trace: redline ledger show run-evil --ledger ${db.replace(/[.\\/]/g, '\\$&')}\n$`));

    // With colors on, the output is the plain one plus redline's own SGR codes, nothing else.
    const colored = await withColors(['review', 'show', evil.id, '--ledger', db]);
    assert.ok(colored.stdout.includes(`${ESC}[32m+ const ok = 1;${ESC}[0m`), colored.stdout);
    const ageless = (out: string): string => out.replace(/\(\d+s ago\)/, '(age)');
    assert.equal(ageless(withoutOwnColors(colored.stdout)), ageless(text));

    const json = await redline(['review', 'show', evil.id, '--json', '--ledger', db]);
    assertNoRawControls(json.stdout);
    assert.deepEqual((JSON.parse(json.stdout) as ReviewEntry).item, evil);

    const unknown = await redline(['review', 'show', 'no-such-item', '--ledger', db]);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, 'redline: No review item no-such-item\n');
    // What a shell sees: exit 2 and that one line, no stack trace.
    assert.deepEqual(spawnRedline(['review', 'show', 'no-such-item', '--ledger', db]), { ...unknown, stdout: '' });
  });

  it('claims in review order and takes verdicts: repeated is a no-op, conflicts and bad input exit 2', async () => {
    const db = await dbIn();
    const [, high1, , high2] = (await seedFive(db)).map((item) => item.id) as [string, string, string, string, string];
    const claim = await redline(['review', 'claim', '--reviewer', 'ann', '--lease', '10m', '--ledger', db]);
    assert.equal(claim.code, 0, claim.stderr);
    assert.match(
      claim.stdout,
      new RegExp(`^claimed ${high1} for ann until \\S+Z \\(lease 10m\\)\n\nitem ${high1} · claimed by ann \\((9|10)m left\\)\n`),
    );
    assert.match(
      claim.stdout,
      new RegExp(`\ndecide: redline review verdict ${high1} --reviewer ann --approve\\|--reject --label LABEL\n$`),
    );
    const second = await redline(['review', 'claim', '--reviewer', 'bob', '--json', '--ledger', db]);
    assert.equal((JSON.parse(second.stdout) as ReviewEntry).item.id, high2);
    assert.match((await redline(['review', 'list', '--ledger', db])).stdout, new RegExp(`${high1} .*claimed by ann \\(`));

    const held = await redline(['review', 'verdict', high1, '--reviewer', 'bob', '--approve', '--label', 'unclear', '--ledger', db]);
    assert.equal(held.code, 2);
    assert.match(held.stderr, new RegExp(`^redline: Item ${high1} is claimed by ann until `));

    const verdict = [
      'review',
      'verdict',
      high1,
      '--reviewer',
      'ann',
      '--reject',
      '--label',
      'logic_error',
      '--comment',
      'off by one',
      '--ledger',
      db,
    ];
    const given = await redline(verdict);
    assert.equal(given.code, 0, given.stderr);
    assert.match(given.stdout, new RegExp(`^${high1} rejected \\(logic_error\\) by ann \\(verdict [\\w-]+\\)\n$`));
    const again = await redline(verdict);
    assert.equal(again.code, 0, again.stderr);
    assert.match(
      again.stdout,
      new RegExp(
        `^${high1} already has this verdict: rejected \\(logic_error\\) by ann at \\S+Z \\(verdict [\\w-]+\\); nothing changed\n$`,
      ),
    );
    const conflicting = await redline([
      'review',
      'verdict',
      high1,
      '--reviewer',
      'ann',
      '--approve',
      '--label',
      'logic_error',
      '--ledger',
      db,
    ]);
    assert.equal(conflicting.code, 2);
    assert.match(conflicting.stderr, new RegExp(`^redline: Item ${high1} already has a verdict: reject \\(logic_error\\) by ann at `));
    assert.match(
      (await redline(['review', 'show', high1, '--ledger', db])).stdout,
      /· decided: rejected \(logic_error\) by ann at [\s\S]*\ncomment {2}off by one\n/,
    );

    const badLabel = await redline(['review', 'verdict', high2, '--reviewer', 'bob', '--approve', '--label', 'looks_fine', '--ledger', db]);
    assert.equal(badLabel.code, 2);
    assert.equal(
      badLabel.stderr,
      'redline: Unknown verdict label "looks_fine": expected one of code_error, logic_error, format_issue, hallucination, unclear\n',
    );
    const unknown = await redline([
      'review',
      'verdict',
      'no-such-item',
      '--reviewer',
      'bob',
      '--approve',
      '--label',
      'unclear',
      '--ledger',
      db,
    ]);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, 'redline: No review item no-such-item\n');
    assert.equal(
      (await redline(['review', 'verdict', high2, '--reviewer', 'bob', '--label', 'unclear', '--ledger', db])).code,
      2,
      'neither --approve nor --reject',
    );
    assert.equal(
      (await redline(['review', 'verdict', high2, '--reviewer', 'bob', '--approve', '--reject', '--label', 'unclear', '--ledger', db]))
        .code,
      2,
      'both',
    );
    assert.equal((await redline(['review', 'claim', '--reviewer', 'bob', '--lease', 'soon', '--ledger', db])).code, 2);

    for (let left = 3; left > 0; left -= 1) assert.equal((await redline(['review', 'claim', '--reviewer', 'cy', '--ledger', db])).code, 0);
    const empty = await redline(['review', 'claim', '--reviewer', 'cy', '--ledger', db]);
    assert.equal(empty.code, 0, empty.stderr);
    assert.equal(empty.stdout, 'queue empty\n');
    assert.equal((await redline(['review', 'claim', '--reviewer', 'cy', '--json', '--ledger', db])).stdout, 'null\n');
  });

  it('reports stats after verdicts: label counts, a filter-rule suggestion past 3 of one label, the approve rate', async () => {
    const db = await dbIn();
    const items = await seedFive(db);
    const before = await redline(['review', 'stats', '--ledger', db]);
    assert.equal(before.code, 0, before.stderr);
    assert.match(
      before.stdout,
      /\ndepth {10}5 of 50 \(0 claimed\) · degraded above 40, normal again below 15\nmode {11}normal\nattempt limit {2}5 /,
    );
    assert.match(before.stdout, /\napprove rate {3}- \(no verdicts yet\)\n[\s\S]*\nsuggestions {4}none\n/);

    for (const item of items.slice(0, 4))
      assert.equal(
        (await redline(['review', 'verdict', item.id, '--reviewer', 'ann', '--reject', '--label', 'format_issue', '--ledger', db])).code,
        0,
      );
    assert.equal(
      (
        await redline([
          'review',
          'verdict',
          (items[4] as ReviewItem).id,
          '--reviewer',
          'ann',
          '--approve',
          '--label',
          'unclear',
          '--ledger',
          db,
        ])
      ).code,
      0,
    );
    const stats = await redline(['review', 'stats', '--ledger', db]);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /\ndepth {10}0 of 50 /);
    assert.match(stats.stdout, /\nverdicts {7}5 \(1 approved, 4 rejected\)\napprove rate {3}20% over the last 5 verdicts\n/);
    assert.match(stats.stdout, /\nlabel counts over the last 5 verdicts:\n {2}format_issue {5}4\n {2}unclear {10}1\n {2}code_error {7}0\n/);
    assert.match(stats.stdout, /\nsuggestions:\n {2}- add an automatic filter rule for format_issue: 4 of the last 5 verdicts carry it\n/);
    assert.match(stats.stdout, /\ndropped {8}0 \(circuit-breaker log\)\nalerts {9}0\n$/);

    const json = JSON.parse((await redline(['review', 'stats', '--json', '--ledger', db])).stdout) as Record<string, unknown>;
    assert.deepEqual(
      [
        json.depth,
        json.approveRate,
        (json.labelCounts as Record<string, number>).format_issue,
        (json.suggestions as { label: string }[]).map((s) => s.label),
      ],
      [0, 0.2, 4, ['format_issue']],
    );
  });

  it('runs with the settings stored with the queue, and `ledger verify` checks the queue journal', async () => {
    const db = await dbIn();
    const [first] = await seed(db, [brief('a'), brief('b')], { backpressure: { capacity: 8 }, labels: ['missing_tests'] });
    const stats = await redline(['review', 'stats', '--ledger', db]);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /\ndepth {10}2 of 8 \(0 claimed\)/);
    const verdict = await redline([
      'review',
      'verdict',
      (first as ReviewItem).id,
      '--reviewer',
      'ann',
      '--reject',
      '--label',
      'missing_tests',
      '--ledger',
      db,
    ]);
    assert.equal(verdict.code, 0, verdict.stderr);
    const verify = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(verify.stdout, `0 of 0 runs verify (0 records) in ${db}\nreview queue journal verifies (2 entries)\n`);
    assert.equal(
      (await redline(['review', 'journal', '--json', '--ledger', db])).stdout.trim().split('\n').length,
      2,
      'verify appends nothing',
    );

    const { default: Database } = await import('better-sqlite3');
    const raw = new Database(db);
    raw.exec(
      "DROP TRIGGER review_journal_refuse_update; UPDATE review_journal SET body = replace(body, 'missing_tests', 'unclear') WHERE seq = 1",
    );
    raw.close();
    const broken = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(broken.code, 1, broken.stderr);
    assert.match(broken.stdout, /\nBROKEN review queue journal: entry 1 modified — journal entry 1 does not match its hash\n$/);
    const json = (await redline(['ledger', 'verify', '--json', '--ledger', db])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(json.at(-1), {
      journal: 'review',
      ok: false,
      records: 2,
      bytes: json.at(-1)?.bytes,
      firstBad: { seq: 1, problem: 'modified', detail: 'journal entry 1 does not match its hash' },
    });
  });

  it('shows and changes the stored settings with `review settings`, journaled, refusing ones that cannot hold', async () => {
    const db = await dbIn();
    await seed(db, [brief('a')]);
    const shown = await redline(['review', 'settings', '--ledger', db]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /\ncapacity {7}50 · degraded above 40 \(high 0\.8\), normal again below 15 \(low 0\.3\)\n/);
    const changed = await redline([
      'review',
      'settings',
      '--capacity',
      '20',
      '--labels',
      'missing_tests, license_issue',
      '--tuner-max',
      '9',
      '--ledger',
      db,
    ]);
    assert.equal(changed.code, 0, changed.stderr);
    assert.match(changed.stdout, /\ncapacity {7}20 · degraded above 16 /);
    assert.match(
      changed.stdout,
      /\nlabels {9}code_error, logic_error, format_issue, hallucination, unclear, missing_tests, license_issue /,
    );
    assert.match(changed.stdout, /\ntuner {10}start 5, within \[3, 9\]/);
    assert.match((await redline(['review', 'stats', '--ledger', db])).stdout, /\ndepth {10}1 of 20 /);
    const refused = await redline(['review', 'settings', '--low', '0.9', '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Expected the low watermark to be a fraction in \[0, high\), got 0\.9 with high 0\.8/);
    assert.equal((await redline(['review', 'settings', '--capacity', '0', '--ledger', db])).code, 2);
    assert.equal(
      (JSON.parse((await redline(['review', 'settings', '--json', '--ledger', db])).stdout) as { backpressure: { capacity: number } })
        .backpressure.capacity,
      20,
    );
    const journal = await redline(['review', 'journal', '--ledger', db]);
    assert.equal(journal.code, 0, journal.stderr);
    assert.match(journal.stdout, /^ {4}0 {2}\S+Z {2}settings {6}settings stored\n {4}1 {2}\S+Z {2}settings {6}settings changed\n$/);
    const entries = (await redline(['review', 'journal', '--json', '--ledger', db])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; data: { to: { backpressure: { capacity: number } } } });
    assert.deepEqual(
      entries.map((entry) => [entry.type, entry.data.to.backpressure.capacity]),
      [
        ['settings', 50],
        ['settings', 20],
      ],
    );
  });

  it("shows the feedback tuner's limit change with its verdict, and dropped items in stats", async () => {
    const db = await dbIn();
    const items = await seed(
      db,
      Array.from({ length: 10 }, (_, index) => brief(`run-${index}`)),
    );
    const queue = await openReviewQueue(db);
    for (const item of items.slice(0, 9)) await queue.verdict(item.id, { reviewer: 'ann', decision: 'approve', label: 'unclear' });
    await queue.close();
    const tenth = await redline([
      'review',
      'verdict',
      (items[9] as ReviewItem).id,
      '--reviewer',
      'ann',
      '--approve',
      '--label',
      'unclear',
      '--ledger',
      db,
    ]);
    assert.equal(tenth.code, 0, tenth.stderr);
    assert.match(tenth.stdout, /\nattempt limit 5 → 6: approve rate 100% over the last 10 verdicts\n$/);
    assert.match((await redline(['review', 'stats', '--ledger', db])).stdout, /\nattempt limit {2}6 /);

    // A queue of capacity 2 drops the lowest-priority item at each arrival past it, into the circuit-breaker log.
    const small = await dbIn();
    await seed(
      small,
      [
        brief('keep', { priority: 9 }),
        brief('first-out', { priority: 1, task: 'dropped \x1b[31mfirst' }),
        brief('second-out', { priority: 2 }),
        brief('also-kept', { priority: 8 }),
      ],
      { backpressure: { capacity: 2 } },
    );
    const stats = await redline(['review', 'stats', '--ledger', small]);
    assert.equal(stats.code, 0, stats.stderr);
    assertNoRawControls(stats.stdout);
    assert.match(
      stats.stdout,
      /\ndropped {8}2 \(circuit-breaker log\); newest 2:\n {2}\S+ {2}priority 2 {2}dropped \S+Z at depth 2 {2}run second-out {2}.*\n {2}\S+ {2}priority 1 {2}dropped \S+Z at depth 2 {2}run first-out {2}dropped \\x1b\[31mfirst\n/,
    );
    const json = JSON.parse((await redline(['review', 'stats', '--json', '--ledger', small])).stdout) as {
      dropped: number;
      newestDropped: { item: ReviewItem }[];
    };
    assert.deepEqual([json.dropped, json.newestDropped.map((dropped) => dropped.item.runId)], [2, ['second-out', 'first-out']]);
  });

  it('`redline run --review` hands an unverified run to the queue in its ledger, and says so', async () => {
    const db = await dbIn();
    const mission = await unverifiedMission();
    const run = await redline(['run', mission, '--review', '--json', '--ledger', db]);
    assert.equal(run.code, 1, run.stderr);
    const summary = JSON.parse(run.stdout) as {
      runId: string;
      verification: string;
      review: { enqueued: boolean; itemId: string; mode: string };
    };
    assert.deepEqual([summary.verification, summary.review.enqueued, summary.review.mode], ['unverified', true, 'normal']);
    const [entry] = (await redline(['review', 'list', '--json', '--ledger', db])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ReviewEntry);
    assert.deepEqual(
      [entry?.item.id, entry?.item.runId, entry?.item.verification, entry?.item.attempts],
      [summary.review.itemId, summary.runId, 'unverified', 3],
    );
    const text = await redline(['run', mission, '--review', '--ledger', db]);
    assert.match(
      text.stdout,
      /\nreview {8}enqueued as item \S+ · queue normal\n {14}review it: redline review serve --ledger \S+ \(or list, claim, verdict\)\n$/,
    );
    const verify = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verify.code, 0, verify.stdout);
    // The queue's settings entry, appended by the run that opened it, is signed with the run's key.
    assert.match(
      verify.stdout,
      /^2 of 2 runs verify \(\d+ records\) in .*\nreview queue journal verifies \(1 entry\); entry signatures: 1 valid, 0 invalid, 0 unsigned — checked with the local key\(s\) .*\n$/,
    );
    // With --no-review nothing reaches the queue (without it, the ledger's queue takes the run: run-review-default.test.ts);
    // review's options with --no-review are a usage error.
    assert.equal(JSON.parse((await redline(['run', mission, '--no-review', '--json', '--ledger', db])).stdout).review.enqueued, false);
    assert.equal((await redline(['review', 'list', '--json', '--ledger', db])).stdout.trim().split('\n').length, 2);
    const refused = await redline(['run', mission, '--no-review', '--sample-rate', '0.5', '--ledger', db]);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /Expected review with --sample-rate or --alert-webhook, got --no-review/);
    assert.equal((await redline(['run', mission, '--review', '--sample-rate', '1.5', '--ledger', db])).code, 2);
  });

  it('`redline ledger recover` hands a crashed run that started under the queue to it', async () => {
    // A process that dies mid-run under the queue of two ledgers: one for `ledger recover`, one for `run`.
    const [db, other] = [await dbIn(), await dbIn()];
    const child = await runChild(path.join(ROOT, 'test/cli/dying-run-child.ts'), [db, other]);
    assert.equal(child.code, 0, child.stderr);
    const recover = await redline(['ledger', 'recover', '--json', '--ledger', db]);
    assert.equal(recover.code, 0, recover.stderr);
    const [recovery] = recover.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { runId: string; action: string });
    assert.equal(recovery?.action, 'sealed_crashed');
    const [entry] = (await redline(['review', 'list', '--json', '--ledger', db])).stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as ReviewEntry);
    assert.deepEqual([entry?.item.runId, entry?.item.verification], [recovery?.runId, 'unverified']);
    assert.match(entry?.item.cutoffReason ?? '', /^crashed: /);

    // `redline run` of another mission leaves such a run to `redline ledger recover` (and so to the queue).
    const run = await redline(['run', await unverifiedMission(), '--ledger', other]);
    assert.match(run.stderr, /^1 other unsealed run: run `redline ledger recover --ledger \S+`\n/);
    assert.doesNotMatch((await redline(['review', 'list', '--json', '--ledger', other])).stdout, /"cutoffReason":"crashed: /);
  });

  it('has --help on every subcommand, with the ledger commands’ --ledger', async () => {
    for (const command of ['list', 'show', 'claim', 'verdict', 'stats', 'settings', 'journal']) {
      const help = await redline(['review', command, '--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^Usage: redline review ${command} `));
      assert.match(
        help.stdout,
        /--ledger <location>\s+ledger: a SQLite file or a postgres:\/\/ URL \(default:\s+\$REDLINE_LEDGER, else \.redline\/redline\.db\)/,
      );
    }
    assert.match(
      (await redline(['review', '--help'])).stdout,
      /list \[options\][\s\S]*show \[options\] <item>[\s\S]*claim[\s\S]*verdict \[options\] <item>[\s\S]*stats[\s\S]*settings[\s\S]*journal/,
    );
  });

  it('works on PostgreSQL with --ledger postgres://…?schema=', async () => {
    const url = `${PG_URL}?schema=${schema}`;
    const [low, high] = (await seed(url, [brief('pg-low', { priority: 1 }), brief('pg-high', { priority: 4 })])).map((item) => item.id) as [
      string,
      string,
    ];
    const list = await redline(['review', 'list', '--json', '--ledger', url]);
    assert.equal(list.code, 0, list.stderr);
    assert.deepEqual(
      list.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as ReviewEntry).item.id),
      [high, low],
    );
    const claim = await redline(['review', 'claim', '--reviewer', 'ann', '--json', '--ledger', url]);
    assert.equal((JSON.parse(claim.stdout) as ReviewEntry).item.id, high);
    const show = await redline(['review', 'show', high, '--ledger', url]);
    assert.match(show.stdout, new RegExp(`\nraw trace: redline ledger show pg-high --ledger '${url.replace(/[.?/]/g, '\\$&')}'\n$`));
    const verdict = await redline(['review', 'verdict', high, '--reviewer', 'ann', '--approve', '--label', 'unclear', '--ledger', url]);
    assert.equal(verdict.code, 0, verdict.stderr);
    assert.equal(
      (await redline(['review', 'verdict', high, '--reviewer', 'ann', '--approve', '--label', 'unclear', '--ledger', url])).code,
      0,
    );
    assert.equal(
      (await redline(['review', 'verdict', high, '--reviewer', 'ann', '--reject', '--label', 'unclear', '--ledger', url])).code,
      2,
    );
    const stats = JSON.parse((await redline(['review', 'stats', '--json', '--ledger', url])).stdout) as {
      depth: number;
      verdicts: { approved: number };
      labelCounts: Record<string, number>;
    };
    assert.deepEqual([stats.depth, stats.verdicts.approved, stats.labelCounts.unclear], [1, 1, 1]);
  });
});
