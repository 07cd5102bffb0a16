import type { Alert } from './alerts.js';
import type { ModeChange } from './backpressure.js';
import type { LimitChange } from './feedback-tuner.js';
import type { JournalRow, JournalVerification } from './journal.js';
import type { DroppedItem, LogPage, Page, Verdict } from './types.js';

/**
 * The review queue as its auditor sees it (docs/review.md): the logs of what the queue did and the
 * hash-chained journal that proves them. Nothing here changes the queue.
 */
export interface QueueAudit {
  /** The circuit-breaker log, oldest first (or newest first, see `LogPage`). */
  droppedItems(page?: LogPage): Promise<readonly DroppedItem[]>;
  /** Every mode switch, oldest first. */
  modeChanges(page?: Page): Promise<readonly ModeChange[]>;
  /** Every attempt limit change with its evidence, oldest first. */
  limitChanges(page?: Page): Promise<readonly LimitChange[]>;
  /** The newest verdicts, newest first. @default n = the label window (50) */
  recentVerdicts(n?: number): Promise<readonly Verdict[]>;
  /** Label counts over the newest `window` verdicts. @default window = the label window (50) */
  labelCounts(window?: number): Promise<Readonly<Record<string, number>>>;
  /** Alerts raised, oldest first (or newest first, see `LogPage`). */
  alerts(page?: LogPage): Promise<readonly Alert[]>;
  /**
   * The queue's hash-chained journal, oldest first: settings, verdicts, mode changes, attempt-limit
   * changes with their evidence, drops (the whole item), alerts and filter rules, as stored.
   */
  journal(page?: Page): Promise<readonly JournalRow[]>;
  /** Checks the whole journal against its hashes and the queue's own count of it, in one snapshot. */
  verifyJournal(): Promise<JournalVerification>;
}
