import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { openReviewQueue } from '../../src/review/open-review-queue.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { brief } from '../review/fixtures.js';
import { redline } from './redline.js';

for (const name of ['REDLINE_LEDGER', 'NO_COLOR']) delete process.env[name];
process.env.FORCE_COLOR = '0';

const parserBrief = (runId: string, code = 'tap.fail.header') =>
  brief(runId, {
    taskType: 'parser',
    failing: [{ check: 'tests', status: 'fail', reasonCodes: [code], message: 'header test failed' }],
  });

/** A SQLite ledger whose queue has four items people labelled format_issue, and their runs' task type and code in common. */
async function labelledLedger(): Promise<string> {
  const db = path.join(await tempWorkspace({}), 'redline.db');
  const queue = await openReviewQueue(db);
  try {
    for (const runId of ['a', 'b', 'c', 'd']) {
      const { item } = await queue.enqueue(parserBrief(runId));
      await queue.verdict(item?.id ?? '', { reviewer: 'ana', decision: 'reject', label: 'format_issue' });
    }
  } finally {
    await queue.close();
  }
  return db;
}

describe('redline review filters', () => {
  it('accepts a suggestion as a rule that catches the next matching item, and lists what each rule caught', async () => {
    const db = await labelledLedger();
    const listed = await redline(['review', 'filters', '--ledger', db]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^no filter rules in /);
    assert.match(
      listed.stdout,
      /suggestion: add an automatic filter rule for format_issue: 4 of the last 4 verdicts carry it \(redline review filters add format_issue\)/,
    );

    const added = await redline(['review', 'filters', 'add', 'format_issue', '--by', 'ana', '--comment', 'keep headers', '--ledger', db]);
    assert.equal(added.code, 0, added.stderr);
    assert.match(
      added.stdout,
      /^added: r1 +enabled +format_issue +return +task type parser · stop budget_attempts · codes tap\.fail\.header +\(by ana\)/,
    );
    const again = await redline(['review', 'filters', 'add', 'format_issue', '--by', 'bo', '--ledger', db]);
    assert.match(again.stdout, /^already in force: r1 /);
    // A label a rule gives is no longer suggested.
    assert.doesNotMatch((await redline(['review', 'filters', '--ledger', db])).stdout, /suggestion/);

    const queue = await openReviewQueue(db);
    try {
      const caught = await queue.enqueue(parserBrief('e'));
      assert.equal(caught.caught?.verdict.reviewer, 'filter:r1');
      assert.equal((await queue.enqueue(parserBrief('f', 'tap.fail.body'))).caught, undefined);
    } finally {
      await queue.close();
    }
    const after = await redline(['review', 'filters', '--json', '--ledger', db]);
    const [rule] = after.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; caught: number; comment: string });
    assert.deepEqual([rule?.id, rule?.caught, rule?.comment], ['r1', 1, 'keep headers']);

    const disabled = await redline(['review', 'filters', 'disable', 'r1', '--by', 'bo', '--ledger', db]);
    assert.match(disabled.stdout, /^disabled: r1 +disabled /);
    // Disabled, the rule gives the label no more: the suggestion is back.
    assert.match(
      (await redline(['review', 'filters', '--ledger', db])).stdout,
      /suggestion: add an automatic filter rule for format_issue/,
    );
    const journal = await redline(['review', 'journal', '--ledger', db]);
    assert.match(journal.stdout, /filter_rule +filter rule r1 \(format_issue, return\) added by ana/);
    assert.match(journal.stdout, /verdict +\S+ rejected \(format_issue\) by filter:r1, run e/);
    assert.match(journal.stdout, /filter_rule +filter rule r1 \(format_issue, return\) disabled by bo/);
    const verified = await redline(['ledger', 'verify', '--ledger', db]);
    assert.equal(verified.code, 0, verified.stdout);
    assert.match(verified.stdout, /review queue journal verifies/);
  });

  it('says what is wrong with a rule that cannot be made, with exit 2, and prints untrusted pattern text escaped', async () => {
    const db = await labelledLedger();
    const unknown = await redline(['review', 'filters', 'add', 'not_a_label', '--pattern', 'x', '--ledger', db]);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown verdict label "not_a_label"/);
    const nothing = await redline(['review', 'filters', 'add', 'unclear', '--ledger', db]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /got 0 that share none: give --task-type, --stop-reason, --reason-code or --pattern/);
    const action = await redline(['review', 'filters', 'add', 'unclear', '--pattern', 'x', '--action', 'approve', '--ledger', db]);
    assert.equal(action.code, 2);
    const missing = await redline(['review', 'filters', 'enable', 'r7', '--ledger', db]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /No filter rule "r7": the queue has none/);
    const evil = await redline(['review', 'filters', 'add', 'unclear', '--pattern', 'x\x1b[2J\r', '--by', 'ana', '--ledger', db]);
    assert.equal(evil.code, 0, evil.stderr);
    assert.ok(!evil.stdout.includes('\x1b') && !evil.stdout.includes('\r'), JSON.stringify(evil.stdout));
  });
});
