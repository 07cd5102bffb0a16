import type { Alert, WebhookDelivery } from './alerts.js';
import type { ModeChange, QueueMode } from './backpressure.js';
import type { LimitChange } from './feedback-tuner.js';
import type { JournalRow, JournalType } from './journal.js';
import type { DroppedItem, ReviewItem, Verdict, VerdictDecision } from './types.js';
import type { StoredItem } from './review-store.js';

// Rows as both SQL backends return them. PostgreSQL hands BIGINT columns back as strings, hence `Num`
// and the `Number(…)` on every one of them.
type Num = number | string;

export interface ItemRow {
  seq: Num;
  id: string;
  run_id: string;
  priority: number;
  item: string;
  state: 'open' | 'decided' | 'dropped';
  claims: number;
  claimed_by: string | null;
  claimed_at: Num | null;
  lease_until: Num | null;
}

export interface VerdictRow {
  id: string;
  item_id: string;
  run_id: string;
  reviewer: string;
  decision: VerdictDecision;
  label: string;
  comment: string | null;
  decided_at: Num;
}

/** An item row with its verdict's columns prefixed `v_` (a left join), when it has one. */
export type ItemVerdictRow = ItemRow & { [K in keyof VerdictRow as `v_${K}`]: VerdictRow[K] | null };

/** A circuit-breaker log row with its item's brief, read with {@link DROPPED_COLUMNS}. */
export interface BreakerRow {
  item: string;
  dropped_at: Num;
  depth: number;
  displaced_by: string;
}

export interface ModeChangeRow {
  from_mode: QueueMode;
  to_mode: QueueMode;
  depth: number;
  changed_at: Num;
}

export interface LimitChangeRow {
  from_limit: number;
  to_limit: number;
  approve_rate: number;
  verdict_ids: string;
  changed_at: Num;
  cause: string | null;
}

export interface AlertRow {
  id: string;
  share: number;
  threshold: number;
  window_size: number;
  capped_run_ids: string;
  raised_at: Num;
  webhook: string | null;
}

/** The columns of a breaker log row `b` joined to its item `i`, whose brief the log does not copy. */
export const DROPPED_COLUMNS = 'b.seq, b.item_id, b.dropped_at, b.depth, b.displaced_by, i.item';

/** The columns of a verdict joined to its item, for {@link ItemVerdictRow}. */
export const VERDICT_JOIN_COLUMNS =
  'v.id AS v_id, v.item_id AS v_item_id, v.run_id AS v_run_id, v.reviewer AS v_reviewer, v.decision AS v_decision, v.label AS v_label, v.comment AS v_comment, v.decided_at AS v_decided_at';

export const toVerdict = (row: VerdictRow): Verdict => ({
  id: row.id,
  itemId: row.item_id,
  runId: row.run_id,
  reviewer: row.reviewer,
  decision: row.decision,
  label: row.label,
  ...(row.comment === null ? {} : { comment: row.comment }),
  decidedAt: Number(row.decided_at),
});

function joinedVerdict(row: Partial<ItemVerdictRow>): Verdict | undefined {
  if (row.v_id === null || row.v_id === undefined) return undefined;
  return toVerdict({
    id: row.v_id,
    item_id: row.v_item_id as string,
    run_id: row.v_run_id as string,
    reviewer: row.v_reviewer as string,
    decision: row.v_decision as VerdictDecision,
    label: row.v_label as string,
    comment: row.v_comment ?? null,
    decided_at: row.v_decided_at as Num,
  });
}

export const toItem = (row: Pick<ItemRow, 'item'>): ReviewItem => JSON.parse(row.item) as ReviewItem;

/** The claim columns of a row, when it was ever claimed. */
export function claimOf(row: ItemRow): { reviewer: string; claimedAt: number; leaseUntil: number } | undefined {
  return row.claimed_by === null
    ? undefined
    : { reviewer: row.claimed_by, claimedAt: Number(row.claimed_at), leaseUntil: Number(row.lease_until) };
}

/** An item row (with its verdict's columns, if joined) as the store hands it to the queue. */
export function toStored(row: ItemRow & Partial<ItemVerdictRow>): StoredItem {
  const claim = claimOf(row);
  const verdict = joinedVerdict(row);
  return {
    item: toItem(row),
    seq: Number(row.seq),
    state: row.state,
    claims: Number(row.claims),
    ...(claim === undefined ? {} : { claim }),
    ...(verdict === undefined ? {} : { verdict }),
  };
}

export const toDropped = (row: BreakerRow): DroppedItem => ({
  item: toItem(row),
  droppedAt: Number(row.dropped_at),
  depth: Number(row.depth),
  displacedBy: row.displaced_by,
});

export const toModeChange = (row: ModeChangeRow): ModeChange => ({
  from: row.from_mode,
  to: row.to_mode,
  depth: Number(row.depth),
  at: Number(row.changed_at),
});

export const toLimitChange = (row: LimitChangeRow): LimitChange => ({
  from: Number(row.from_limit),
  to: Number(row.to_limit),
  approveRate: Number(row.approve_rate),
  verdictIds: JSON.parse(row.verdict_ids) as string[],
  at: Number(row.changed_at),
  ...(row.cause === 'settings' ? { cause: 'settings' as const } : {}),
});

export const toAlert = (row: AlertRow): Alert => ({
  id: row.id,
  kind: 'budget_cap_share',
  share: Number(row.share),
  threshold: Number(row.threshold),
  window: Number(row.window_size),
  cappedRunIds: JSON.parse(row.capped_run_ids) as string[],
  raisedAt: Number(row.raised_at),
  ...(row.webhook === null ? {} : { webhook: JSON.parse(row.webhook) as WebhookDelivery }),
});

export interface JournalSqlRow {
  seq: Num;
  type: JournalType;
  body: string;
  prev_hash: string;
  hash: string;
  /** Null when the entry was appended unsigned; absent from a queue migrated before entries were signed. */
  signature?: string | null;
}

export const toJournalRow = (row: JournalSqlRow): JournalRow => ({
  seq: Number(row.seq),
  type: row.type,
  body: row.body,
  prevHash: row.prev_hash,
  hash: row.hash,
  ...(row.signature === null || row.signature === undefined ? {} : { signature: row.signature }),
});
