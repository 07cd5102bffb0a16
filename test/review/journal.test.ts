import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RecordParseError } from '../../src/errors/record-parse-error.js';
import { parseJournalEntry } from '../../src/review/journal-entries.js';
import { chainJournal, EMPTY_JOURNAL, journalBody, journalBodyAround, verifyJournal, type JournalRow } from '../../src/review/journal.js';

const entries = Array.from({ length: 5 }, (_, n) => ({
  type: 'verdict' as const,
  at: 1_700_000_000_000 + n,
  data: {
    id: `v${n}`,
    itemId: `i${n}`,
    runId: `r${n}`,
    reviewer: 'ana',
    decision: n % 2 === 0 ? 'approve' : 'reject',
    label: 'code_error',
  },
}));

describe('review journal chain', () => {
  it('verifies as appended, and names the first bad entry of each kind of tampering', () => {
    const { rows, head } = chainJournal(EMPTY_JOURNAL, entries);
    assert.deepEqual(verifyJournal(rows, head), { ok: true, records: 5, bytes: rows.reduce((sum, row) => sum + row.body.length, 0) });
    const problem = (changed: readonly JournalRow[], at = head) => verifyJournal(changed, at).firstBad;
    const edited = rows.map((row) => (row.seq === 2 ? { ...row, body: row.body.replace('approve', 'reject') } : row));
    assert.deepEqual(problem(edited), { seq: 2, problem: 'modified', detail: 'journal entry 2 does not match its hash' });
    assert.deepEqual(problem(rows.filter((row) => row.seq !== 1)), {
      seq: 1,
      problem: 'missing',
      detail: 'journal entry 1 is missing (next stored is 2)',
    });
    // An entry removed and the rest renumbered: each body still names its own place.
    const renumbered = rows.filter((row) => row.seq !== 1).map((row, index) => ({ ...row, seq: index }));
    assert.deepEqual(problem(renumbered), { seq: 1, problem: 'reordered', detail: 'journal entry 1 holds entry 2' });
    assert.deepEqual(problem(rows.slice(0, 3)), { seq: 3, problem: 'truncated', detail: '5 journal entries were appended, 3 are stored' });
    const extra = chainJournal(head, entries.slice(0, 1)).rows;
    assert.deepEqual(problem([...rows, ...extra]), {
      seq: 5,
      problem: 'appended',
      detail: '6 journal entries are stored, 5 were appended',
    });
  });

  it('reads entries back typed by their type, and names an entry that does not parse, its chain intact', () => {
    const { rows, head } = chainJournal(EMPTY_JOURNAL, [
      ...entries.slice(0, 2),
      { type: 'drop', at: 1, data: { item: { id: 'i9', runId: 'r9' }, depth: 50, displacedBy: 'i10' } },
    ]);
    const first = parseJournalEntry(rows[0] as JournalRow);
    assert.equal(first.type === 'verdict' ? first.data.itemId : undefined, 'i0');
    assert.throws(
      () => parseJournalEntry(rows[2] as JournalRow),
      (error: unknown) =>
        error instanceof RecordParseError &&
        [error.entry, error.seq, error.type, error.path].join(' ') === 'journal entry 2 drop data.item.priority' &&
        /^journal entry 2 \(drop\) does not parse: data\.item\.priority: /.test(error.message),
    );
    const result = verifyJournal(rows, head);
    assert.deepEqual([result.ok, result.firstBad], [false, undefined]);
    assert.match(result.entryProblem ?? '', /^entry 2 \(drop\): data\.item\.priority: /);
  });

  it('builds a body around a seq filled in later exactly as a whole body', () => {
    // Data that holds the same keys, or the same text, does not confuse where the entry's own seq goes.
    const data = { id: 'v', note: ',"seq":0,"type":', nested: { a: 1, seq: 0, type: 'x' } };
    const { before, after } = journalBodyAround('verdict', 1, data);
    assert.equal(`${before}17${after}`, journalBody(17, 'verdict', 1, data));
  });
});
