import type { PgClient } from '../../db/postgres/pg-pool.js';
import { watermark, type QueueMode } from '../backpressure.js';
import { journalBodyAround } from '../journal.js';
import type { Verdict } from '../types.js';
import type { FastPaths } from '../review-store.js';
import type { ItemRow } from '../sql-rows.js';

type Query = Pick<PgClient, 'query'>;

/** Claims remembered for their verdict's one statement; older ones fall back to reading the item. */
const CLAIMED_RUNS = 1024;

/** The statements, qualified with the (quoted) schema `S`. */
function statements(S: string) {
  return {
    // With the settings this process holds, below capacity and with no mode change to record, the depth
    // counts up and the item goes in; otherwise nothing happens. A run enqueued before fails the unique
    // index, which aborts it all the same. The CASE is `nextMode` holding the mode at depth + 1.
    enqueue: `WITH counted AS (
        UPDATE ${S}.review_state SET depth = depth + 1
        WHERE id = 1 AND settings_version = $9::int AND depth < $6::int
          AND CASE WHEN mode = 'normal' THEN depth + 1 <= $7::float8 ELSE depth + 1 >= $8::float8 END RETURNING mode),
      inserted AS (
        INSERT INTO ${S}.review_items (id, run_id, priority, item, enqueued_at, state) SELECT $1, $2, $3, $4, $5, 'open' FROM counted RETURNING seq)
      SELECT counted.mode FROM counted, inserted`,
    // Locks the item, then the state row (the order of the full transaction), and holds the state row only
    // until its commit: when the item is open and not under another reviewer's live claim, the mode stays
    // (`release`) and the tuner holds (`tuneLimit`, computed from the window kept in the state row), the
    // verdict, the item leaving the queue, the depth, the window and the journal entry (numbered and hashed
    // here, after the head it locked) go in together. Otherwise nothing changes.
    verdict: `WITH target AS (
        SELECT id FROM ${S}.review_items WHERE id = $2 AND run_id = $3 AND state = 'open' AND (claimed_by IS NULL OR claimed_by = $4 OR lease_until <= $8) FOR UPDATE),
      counted AS (
        UPDATE ${S}.review_state s SET
          depth = s.depth - 1,
          verdicts = s.verdicts + 1,
          approved = s.approved + ($5::text = 'approve')::int,
          tuner_ids = (s.tuner_ids || $1::text)[cardinality(s.tuner_ids) + 2 - $10::int:],
          tuner_approvals = (s.tuner_approvals || ($5::text = 'approve'))[cardinality(s.tuner_approvals) + 2 - $10::int:],
          journal_count = s.journal_count + 1,
          journal_prev = s.journal_hash,
          journal_hash = encode(sha256(convert_to(s.journal_hash || $9::text || s.journal_count::text || $18::text, 'UTF8')), 'hex')
        WHERE s.id = 1 AND EXISTS (SELECT 1 FROM target) AND s.settings_version = $17::int AND s.depth > 0 AND cardinality(s.tuner_ids) >= $10::int - 1
          AND CASE WHEN s.mode = 'degraded' THEN s.depth - 1 >= $11::float8 ELSE s.depth - 1 <= $16::float8 END
          AND LEAST($14::int, GREATEST($13::int, s.attempt_limit + (
            SELECT CASE WHEN rate > $12::float8 THEN 1 WHEN rate < $15::float8 THEN -1 ELSE 0 END
            FROM (SELECT count(*) FILTER (WHERE a)::float8 / $10::int AS rate FROM unnest((s.tuner_approvals || ($5::text = 'approve'))[cardinality(s.tuner_approvals) + 2 - $10::int:]) a) r
          ))) = s.attempt_limit
        RETURNING s.journal_count - 1 AS seq, s.journal_prev, s.journal_hash),
      decided AS (UPDATE ${S}.review_items SET state = 'decided', claimed_by = NULL, claimed_at = NULL, lease_until = NULL WHERE id = $2 AND EXISTS (SELECT 1 FROM counted)),
      verdict AS (INSERT INTO ${S}.review_verdicts (id, item_id, run_id, reviewer, decision, label, comment, decided_at) SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM counted),
      journaled AS (INSERT INTO ${S}.review_journal (seq, type, body, prev_hash, hash) SELECT seq, 'verdict', $9::text || seq::text || $18::text, journal_prev, journal_hash FROM counted)
      SELECT seq FROM counted`,
    item: `SELECT run_id, state, claimed_by, lease_until FROM ${S}.review_items WHERE id = $1`,
  };
}

/**
 * PostgreSQL's one-statement enqueue and verdict: each commits on its own and holds the state row only
 * for its tail and commit, not for `BEGIN` … `COMMIT` round trips. `claimed` is called with each item
 * this queue claims, so a verdict on it need not read the item first.
 */
export function postgresFastPaths(pool: Query, S: string): FastPaths & { claimed(itemId: string, runId: string): void } {
  const sql = statements(S);
  /** Item → run of the items this queue claimed and has not decided yet (the newest {@link CLAIMED_RUNS}). */
  const claimedRuns = new Map<string, string>();
  return {
    claimed(itemId, runId) {
      claimedRuns.set(itemId, runId);
      if (claimedRuns.size > CLAIMED_RUNS) claimedRuns.delete(claimedRuns.keys().next().value as string);
    },

    async enqueue({ item, policy: { capacity, high, low }, settingsVersion }) {
      try {
        const { rows } = await pool.query<{ mode: QueueMode }>(sql.enqueue, [
          item.id,
          item.runId,
          item.priority,
          JSON.stringify(item),
          item.enqueuedAt,
          capacity,
          watermark(high, capacity),
          watermark(low, capacity),
          settingsVersion,
        ]);
        return rows[0]?.mode;
      } catch (error) {
        // The run was enqueued before: the full transaction says what became of it.
        if ((error as { code?: string }).code !== '23505') throw error;
        return undefined;
      }
    },

    async verdict({ itemId, input, at, verdictId, config, settingsVersion }) {
      // The item's run names the verdict's journal entry: known from this queue's own claim, else read.
      // Either way the one statement re-checks the item under its lock.
      const claimedRun = claimedRuns.get(itemId);
      claimedRuns.delete(itemId);
      const seen =
        claimedRun === undefined
          ? (await pool.query<Pick<ItemRow, 'run_id' | 'state' | 'claimed_by' | 'lease_until'>>(sql.item, [itemId])).rows[0]
          : undefined;
      const runId =
        claimedRun ??
        (seen !== undefined &&
        seen.state === 'open' &&
        (seen.claimed_by === null || seen.claimed_by === input.reviewer || Number(seen.lease_until) <= at)
          ? seen.run_id
          : undefined);
      if (runId === undefined) return undefined;
      const verdict: Verdict = {
        id: verdictId(),
        itemId,
        runId,
        reviewer: input.reviewer,
        decision: input.decision,
        label: input.label,
        ...(input.comment === undefined ? {} : { comment: input.comment }),
        decidedAt: at,
      };
      const { capacity, low, high } = config.backpressure;
      const { window, raiseAbove, lowerBelow, min, max } = config.tuner;
      // The journal entry's seq is the count the statement finds under its lock.
      const body = journalBodyAround('verdict', at, verdict);
      const { rows } = await pool.query(sql.verdict, [
        verdict.id,
        itemId,
        runId,
        verdict.reviewer,
        verdict.decision,
        verdict.label,
        verdict.comment ?? null,
        at,
        body.before,
        window,
        watermark(low, capacity),
        raiseAbove,
        min,
        max,
        lowerBelow,
        watermark(high, capacity),
        settingsVersion,
        body.after,
      ]);
      return rows.length > 0 ? verdict : undefined;
    },
  };
}
