import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { chainRecord } from '../../src/ledger/chain.js';
import type { LedgerRecord, StoredRecord } from '../../src/ledger/ledger.js';
import type { ChainProblem } from '../../src/core/hash-chain.js';
import { verifyRun } from '../../src/ledger/verify.js';
import { sqlBackends, type RawAccess, type RawColumn } from './backends.js';

/**
 * Cases per backend: five kinds of edit, each ~60 times a run, new cases every run (fast-check's seed is
 * printed on a failure). For a longer hunt: REDLINE_TAMPER_RUNS=5000 node --import tsx --test test/ledger/tamper.test.ts
 */
const NUM_RUNS = Number(process.env.REDLINE_TAMPER_RUNS ?? 300);

/** What a flip writes: printable ASCII, so an edited row stays text that either database stores as is. */
const PRINTABLE = Array.from({ length: 95 }, (_, index) => String.fromCharCode(0x20 + index));

/** One edit by someone with direct access to the database, guards off. */
type Edit =
  /** Overwrites one character of one column of one row. */
  | { readonly kind: 'flip'; readonly seq: number; readonly column: RawColumn; readonly position: number; readonly shift: number }
  | { readonly kind: 'delete'; readonly seq: number }
  | { readonly kind: 'swap'; readonly first: number; readonly second: number }
  /** Deletes the last `count` rows. */
  | { readonly kind: 'truncate'; readonly count: number }
  /** Inserts a row after the seal, correctly chained to the seal's hash, so only the seal rule can catch it. */
  | { readonly kind: 'append'; readonly type: 'attempt' | 'decision' | 'run.sealed' };

const text = fc.string({ unit: 'grapheme', maxLength: 16 });
const step = fc.oneof(
  fc.record({
    type: fc.constant('attempt' as const),
    data: fc.record({
      value: text,
      score: fc.double({ min: 0, max: 1, noNaN: true }),
      nested: fc.record({ z: fc.array(fc.integer(), { maxLength: 3 }), a: text }),
    }),
  }),
  fc.record({
    type: fc.constant('decision' as const),
    data: fc.record({ decision: fc.record({ transition: fc.constantFrom('retry', 'accept', 'block', 'fail'), reason: text }) }),
  }),
);
/** A sealed run of 4–15 records: `run.started`, attempts and decisions, `run.sealed`. */
const story = fc.record({
  taskType: fc.constantFrom('default', 'refactor'),
  steps: fc.array(step, { minLength: 2, maxLength: 13 }),
  seal: fc.record({
    outcome: fc.constantFrom('complete', 'failed_with_evidence', 'blocked'),
    verification: fc.constantFrom('verified', 'sampled', 'unverified'),
    stopReason: text,
  }),
});
type Story = typeof story extends fc.Arbitrary<infer T> ? T : never;

/** Every edit of a run of `n` records, each kind equally likely. */
function editOf(n: number): fc.Arbitrary<Edit> {
  const seq = fc.integer({ min: 0, max: n - 1 });
  return fc.oneof(
    fc.record({
      kind: fc.constant('flip' as const),
      seq,
      column: fc.constantFrom<RawColumn>('body', 'hash', 'prev_hash'),
      position: fc.nat(),
      shift: fc.integer({ min: 1, max: PRINTABLE.length - 1 }),
    }),
    fc.record({ kind: fc.constant('delete' as const), seq }),
    fc
      .integer({ min: 0, max: n - 2 })
      .chain((first) =>
        fc.record({ kind: fc.constant('swap' as const), first: fc.constant(first), second: fc.integer({ min: first + 1, max: n - 1 }) }),
      ),
    fc.record({ kind: fc.constant('truncate' as const), count: fc.integer({ min: 1, max: n }) }),
    fc.record({
      kind: fc.constant('append' as const),
      type: fc.constantFrom('attempt' as const, 'decision' as const, 'run.sealed' as const),
    }),
  );
}

const cases = story.chain((run) => editOf(run.steps.length + 2).map((edit) => ({ run, edit })));

function recordsOf(runId: string, { taskType, steps, seal }: Story): LedgerRecord[] {
  return [
    { runId, seq: 0, type: 'run.started', at: 1_000, data: { mission: { id: 'tamper', taskType } } },
    ...steps.map((item, index): LedgerRecord => ({ runId, seq: index + 1, type: item.type, at: 1_001 + index, data: item.data })),
    { runId, seq: steps.length + 1, type: 'run.sealed', at: 1_001 + steps.length, data: seal },
  ];
}

/**
 * Replaces the character at `position` (modulo the length, counted in code points so a surrogate pair is
 * never split) with another one. Stepping 1–94 places around the printable ring never lands back on the
 * original, and a character outside it differs from any printable one: the edit is never a no-op.
 */
function flip(value: string, position: number, shift: number): string {
  const characters = Array.from(value);
  const index = position % characters.length;
  const at = PRINTABLE.indexOf(characters[index] as string);
  characters[index] = PRINTABLE[at === -1 ? shift : (at + shift) % PRINTABLE.length] as string;
  return characters.join('');
}

const columnOf = (row: StoredRecord, column: RawColumn): string =>
  column === 'body' ? row.body : column === 'hash' ? row.hash : row.prevHash;

async function apply(raw: RawAccess, rows: readonly StoredRecord[], edit: Edit): Promise<void> {
  const seal = rows.at(-1) as StoredRecord;
  switch (edit.kind) {
    case 'flip': {
      const row = rows[edit.seq] as StoredRecord;
      return raw.updateColumn(row.runId, row.seq, edit.column, flip(columnOf(row, edit.column), edit.position, edit.shift));
    }
    case 'delete':
      return raw.delete(seal.runId, edit.seq);
    case 'swap':
      return raw.swap(seal.runId, edit.first, edit.second);
    case 'truncate':
      for (let seq = rows.length - edit.count; seq < rows.length; seq++) await raw.delete(seal.runId, seq);
      return;
    case 'append':
      return raw.insert(
        chainRecord(seal.hash, { runId: seal.runId, seq: rows.length, type: edit.type, at: 9_999, data: { appended: 'after the seal' } }),
      );
  }
}

/**
 * Where and how verification must fail after `edit` on a run of `n` records. A flip is `modified` at its
 * row whether or not the body is still JSON, because the hash is checked before the body is read; a hash
 * or prev_hash flip breaks the row's own hash first. Deleting a row before the last leaves a gap
 * (`missing`, also for row 0); deleting the last or truncating leaves fewer rows than the run row counts.
 */
function expectedFirstBad(edit: Edit, n: number): { seq: number; problem: ChainProblem } {
  switch (edit.kind) {
    case 'flip':
      return { seq: edit.seq, problem: 'modified' };
    case 'delete':
      return edit.seq === n - 1 ? { seq: n - 1, problem: 'truncated' } : { seq: edit.seq, problem: 'missing' };
    case 'swap':
      return { seq: edit.first, problem: 'reordered' };
    case 'truncate':
      return { seq: n - edit.count, problem: 'truncated' };
    case 'append':
      return { seq: n, problem: 'appended_after_seal' };
  }
}

/** A name for the kind of case, to show that each kind (and both sorts of body flip) was exercised. */
function label(edit: Edit, rows: readonly StoredRecord[]): string {
  if (edit.kind !== 'flip') return edit.kind;
  if (edit.column !== 'body') return `flip ${edit.column}`;
  const row = rows[edit.seq] as StoredRecord;
  try {
    JSON.parse(flip(row.body, edit.position, edit.shift));
    return 'flip body, still JSON';
  } catch {
    return 'flip body, not JSON';
  }
}

for (const backend of sqlBackends) {
  test(`${backend.name}: verify names the record that one raw edit of a sealed run touched, and how`, async (t) => {
    const { ledger, raw, close } = await backend.open();
    try {
      await raw.disableGuards();
      const seen = new Map<string, number>();
      let runs = 0;
      const started = performance.now();
      await fc.assert(
        fc.asyncProperty(cases, async ({ run, edit }) => {
          // One ledger for every case, a new run id per case (fast-check's shrinking included).
          const runId = `tamper-${(runs += 1)}`;
          const rows: StoredRecord[] = [];
          for (const record of recordsOf(runId, run)) rows.push(await ledger.append(record));
          const [before] = await ledger.runs({ runId });
          assert.ok(before);
          assert.equal(verifyRun(before, await ledger.stored(runId)).firstBad, undefined);

          await apply(raw, rows, edit);
          const [after] = await ledger.runs({ runId });
          assert.ok(after);
          const { ok, firstBad } = verifyRun(after, await ledger.stored(runId));
          assert.equal(ok, false);
          assert.deepEqual({ seq: firstBad?.seq, problem: firstBad?.problem }, expectedFirstBad(edit, rows.length));
          seen.set(label(edit, rows), (seen.get(label(edit, rows)) ?? 0) + 1);
        }),
        { numRuns: NUM_RUNS },
      );
      const kinds = [...seen].sort(([a], [b]) => a.localeCompare(b)).map(([kind, count]) => `${kind} ${count}`);
      t.diagnostic(`${NUM_RUNS} cases in ${Math.round(performance.now() - started)} ms (${kinds.join(', ')})`);
    } finally {
      await close();
    }
  });
}
