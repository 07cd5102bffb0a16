import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { verifyCommand } from '../../src/cli/ledger-command.js';
import { proposeFilter } from '../../src/review/filter-proposal.js';
import { filterMatch, ruleMatches } from '../../src/review/filter-rules.js';
import { parseJournalEntry } from '../../src/review/journal-entries.js';
import { ReviewError } from '../../src/review/review-error.js';
import { briefItem } from '../../src/review/review-item.js';
import type { ReviewItem } from '../../src/review/review-queue.js';
import type { Brief } from '../../src/core/brief.js';
import { backends, type OpenedQueue, type RecycledQueue } from './backends.js';
import { brief, testRuntime } from './fixtures.js';

const failing = (...codes: string[]): NonNullable<Brief['failing']> => [
  { check: 'tests', status: 'fail', reasonCodes: codes, message: `tests failed: ${codes.join(', ')}` },
];

/** A brief of task type `taskType` whose tests fail with `codes`. */
const typed = (runId: string, taskType: string, codes: string[], extra: Partial<Brief> = {}): Brief =>
  brief(runId, { taskType, failing: failing(...codes), ...extra });

const itemOf = (input: Brief): ReviewItem => briefItem(input, { id: 'i', enqueuedAt: 0 });

describe('filter rules: matching', () => {
  it('holds every criterion given: task type, stop reason, all reason codes, pattern', () => {
    const item = itemOf(typed('r', 'parser', ['tap.fail.a', 'tap.fail.b'], { lastError: 'tests: Expected 2, got 3' }));
    assert.equal(ruleMatches({ match: { taskType: 'parser' } }, item), true);
    assert.equal(ruleMatches({ match: { taskType: 'docs' } }, item), false);
    assert.equal(ruleMatches({ match: { stopReason: 'budget_attempts' } }, item), true);
    assert.equal(ruleMatches({ match: { stopReason: 'budget' } }, item), false, 'the stop reason is the whole code');
    assert.equal(ruleMatches({ match: { reasonCodes: ['tap.fail.a'] } }, item), true);
    assert.equal(ruleMatches({ match: { reasonCodes: ['tap.fail.a', 'tap.fail.c'] } }, item), false);
    assert.equal(ruleMatches({ match: { pattern: 'expected 2' } }, item), true, 'case-insensitive');
    assert.equal(ruleMatches({ match: { taskType: 'parser', pattern: 'nowhere' } }, item), false);
  });

  it('matches a pattern as text, never as a regular expression', () => {
    const item = itemOf(brief('r', { lastError: 'a'.repeat(100_000) }));
    assert.equal(ruleMatches({ match: { pattern: '.*' } }, item), false);
    assert.equal(ruleMatches({ match: { pattern: '(a+)+$' } }, item), false);
  });

  it('refuses a match that would catch everything, and malformed criteria', () => {
    assert.throws(() => filterMatch({}), /at least one of taskType, stopReason, reasonCodes or pattern/);
    assert.throws(() => filterMatch({ pattern: '   ' }), /at least one/);
    assert.throws(() => filterMatch({ reasonCodes: ['ok', 'bad code'] }), /Expected reasonCodes to be reason codes/);
    assert.throws(() => filterMatch({ taskType: '\u001b[31m' }), /Expected taskType to be a task type name/);
    assert.throws(() => filterMatch({ pattern: 'x'.repeat(201) }), /at most 200 characters/);
    assert.deepEqual(filterMatch({ reasonCodes: ['b', 'a', 'b'], pattern: ' x ' }), { reasonCodes: ['a', 'b'], pattern: 'x' });
  });

  it('proposes what the labelled items share: the most common task type, its stop reason and common codes', () => {
    const items = [
      typed('1', 'parser', ['a', 'b']),
      typed('2', 'parser', ['a', 'c']),
      typed('3', 'parser', ['a', 'b']),
      typed('4', 'docs', ['z']),
    ].map(itemOf);
    assert.deepEqual(proposeFilter('format_issue', items), {
      label: 'format_issue',
      match: { taskType: 'parser', stopReason: 'budget_attempts', reasonCodes: ['a'] },
      labelled: 4,
      matching: 3,
    });
    assert.deepEqual(proposeFilter('unclear', []), { label: 'unclear', match: {}, labelled: 0, matching: 0 });
  });
});

for (const backend of backends) {
  describe(`filter rules: ${backend.name}`, () => {
    after(() => backend.dropRecycled());

    /** A queue on storage as a fresh open leaves it (recycled), for cases that need only the queue. */
    async function withQueue(work: (opened: RecycledQueue) => Promise<void>): Promise<void> {
      const opened = await backend.openRecycled(testRuntime().options());
      try {
        await work(opened);
      } finally {
        await opened.close();
      }
    }

    /** A queue on fresh storage, for cases that reopen it, open the ledger beside it or reach its tables. */
    async function withStorage(work: (opened: OpenedQueue) => Promise<void>): Promise<void> {
      const opened = await backend.open(testRuntime().options());
      try {
        await work(opened);
      } finally {
        await opened.close();
      }
    }

    it('a rule accepted from a suggestion catches the next matching item before a person sees it', () =>
      withQueue(async ({ queue }) => {
        for (const runId of ['a', 'b', 'c', 'd']) {
          const { item } = await queue.enqueue(typed(runId, 'parser', ['tap.fail.header']));
          await queue.verdict(item?.id ?? '', { reviewer: 'ana', decision: 'reject', label: 'format_issue' });
        }
        assert.deepEqual(
          (await queue.stats()).suggestions.map((s) => s.label),
          ['format_issue'],
        );
        const proposal = await queue.proposeFilterRule('format_issue');
        assert.deepEqual(proposal.match, { taskType: 'parser', stopReason: 'budget_attempts', reasonCodes: ['tap.fail.header'] });
        const { rule, repeated } = await queue.addFilterRule({
          label: 'format_issue',
          match: proposal.match,
          comment: 'keep the header format',
          by: 'ana',
        });
        assert.equal(repeated, false);
        assert.deepEqual(
          { id: rule.id, action: rule.action, enabled: rule.enabled, createdBy: rule.createdBy },
          { id: 'r1', action: 'return', enabled: true, createdBy: 'ana' },
        );
        // The same rule again (a double-submitted form) is the first one.
        assert.deepEqual(await queue.addFilterRule({ label: 'format_issue', match: proposal.match, by: 'bo' }), { rule, repeated: true });

        const depth = await queue.depth();
        const caught = await queue.enqueue(typed('e', 'parser', ['tap.fail.header', 'tap.fail.other']));
        assert.equal(caught.caught?.rule.id, 'r1');
        assert.deepEqual(
          {
            reviewer: caught.caught?.verdict.reviewer,
            decision: caught.caught?.verdict.decision,
            label: caught.caught?.verdict.label,
            comment: caught.caught?.verdict.comment,
          },
          { reviewer: 'filter:r1', decision: 'reject', label: 'format_issue', comment: 'keep the header format' },
        );
        assert.equal((await queue.get(caught.item?.id ?? ''))?.status, 'decided');
        assert.equal(await queue.depth(), depth, 'a caught item never counts toward the depth');
        // Another task type, or a failure without the code, waits for a person.
        const other = await queue.enqueue(typed('f', 'docs', ['tap.fail.header']));
        const without = await queue.enqueue(typed('g', 'parser', ['tap.fail.body']));
        assert.equal(other.caught, undefined);
        assert.equal(without.caught, undefined);
        assert.equal(await queue.depth(), depth + 2);

        assert.deepEqual(
          (await queue.filterRules()).map((entry) => [entry.id, entry.caught]),
          [['r1', 1]],
        );
        const stats = await queue.stats();
        assert.equal(stats.verdicts.total, 5);
        // The label's rule is in force: people's four verdicts no longer suggest it.
        assert.deepEqual(stats.suggestions, []);
        assert.equal((await queue.verifyJournal()).ok, true);
      }));

    it('a disabled rule catches nothing until enabled again; every change is journaled with who made it', () =>
      withQueue(async ({ queue }) => {
        const { rule } = await queue.addFilterRule({ label: 'code_error', match: { pattern: 'SyntaxError' }, action: 'reject', by: 'ana' });
        assert.equal((await queue.setFilterRule(rule.id, { enabled: false, by: 'bo' })).enabled, false);
        assert.equal((await queue.enqueue(brief('a', { lastError: 'tests: SyntaxError: Unexpected token' }))).caught, undefined);
        await queue.setFilterRule(rule.id, { enabled: true, by: 'ana' });
        assert.equal((await queue.enqueue(brief('b', { lastError: 'syntaxerror at 1:1' }))).caught?.rule.action, 'reject');
        const entries = (await queue.journal()).map(parseJournalEntry).filter((entry) => entry.type === 'filter_rule');
        assert.deepEqual(
          entries.map((entry) => [entry.data.event, entry.data.by, entry.data.rule.enabled]),
          [
            ['added', 'ana', true],
            ['disabled', 'bo', false],
            ['enabled', 'ana', true],
          ],
        );
        assert.equal((await queue.verifyJournal()).ok, true);
        await assert.rejects(queue.setFilterRule('r9', { enabled: false, by: 'ana' }), (error: unknown) => {
          assert.ok(error instanceof ReviewError);
          assert.equal(error.code, 'review.unknown_filter');
          assert.match(error.message, /No filter rule "r9": the queue has r1/);
          return true;
        });
      }));

    it('refuses a rule that would catch everything, an unknown label, and a person giving a verdict in a rule’s name', () =>
      withQueue(async ({ queue }) => {
        await assert.rejects(queue.addFilterRule({ label: 'code_error', match: {}, by: 'ana' }), /at least one of/);
        await assert.rejects(queue.addFilterRule({ label: 'nope', match: { pattern: 'x' }, by: 'ana' }), /Unknown verdict label "nope"/);
        await assert.rejects(
          queue.addFilterRule({ label: 'code_error', match: { pattern: 'x' }, by: 'filter:r1' }),
          /Expected the reviewer/,
        );
        const { item } = await queue.enqueue(brief('a'));
        await assert.rejects(
          queue.verdict(item?.id ?? '', { reviewer: 'filter:r1', decision: 'reject', label: 'unclear' }),
          /names starting with filter:/,
        );
        assert.deepEqual(await queue.filterRules(), []);
      }));

    if (backend.name !== 'memory') {
      it('a rule added by another process is in force at once, the fast paths included', () =>
        withStorage(async ({ queue, reopen }) => {
          const other = await (reopen as NonNullable<typeof reopen>)();
          assert.equal((await queue.enqueue(brief('a', { taskType: 'lint' }))).caught, undefined);
          await other.addFilterRule({ label: 'format_issue', match: { taskType: 'lint' }, by: 'bo' });
          const caught = await queue.enqueue(brief('b', { taskType: 'lint' }));
          assert.equal(caught.caught?.verdict.reviewer, 'filter:r1');
          assert.deepEqual(
            (await queue.filterRules()).map((entry) => [entry.id, entry.caught]),
            [['r1', 1]],
          );
        }));

      it('ledger verify passes the journaled rules and finds a rule slipped into the settings without a journal entry', () =>
        withStorage(async ({ queue, location, tamper, openLedger }) => {
          await (openLedger as NonNullable<typeof openLedger>)();
          const { rule } = await queue.addFilterRule({ label: 'unclear', match: { pattern: 'flaky' }, by: 'ana' });
          await queue.setFilterRule(rule.id, { enabled: false, by: 'ana' });
          await queue.enqueue(brief('a', { lastError: 'flaky network' }));
          const lines: string[] = [];
          const output = { print: (line: string) => lines.push(line), progress: () => undefined };
          assert.equal(await verifyCommand({ ledger: location as string }, output), 0, lines.join('\n'));
          assert.match(lines.at(-1) ?? '', /review queue journal verifies \(\d+ entries\)/);
          // Someone with the database enables the rule behind the journal's back.
          await (tamper as NonNullable<typeof tamper>)(
            `UPDATE review_state SET settings = replace(settings, '"enabled":false', '"enabled":true')`,
          );
          lines.length = 0;
          assert.equal(await verifyCommand({ ledger: location as string }, output), 1);
          assert.match(
            lines.at(-1) ?? '',
            /BROKEN review queue: review_state disagrees with the journal — the settings in review_state are not the ones journal entry \d+ put in force/,
          );
        }));
    }
  });
}
