/**
 * The storage port under the learned priors (`StoredPriors`, priors.ts): one JSON entry per task type,
 * rewritten in place. The priors check, parse and compute; a store only reads and writes entries, and
 * makes each update one locked read-modify-write.
 */
export interface PriorsStore {
  /** A task type's stored entry (JSON text); undefined before the first update. */
  read(taskType: string): Promise<string | undefined>;
  /**
   * Replaces a task type's entry by `next(current)` (`current` undefined before the first update, or what
   * the store keeps for a new entry), holding it from the read to the write: concurrent updates, in this
   * process or another, queue instead of losing one. `next` may throw: then nothing is written.
   */
  update(taskType: string, next: (current: string | undefined) => string): Promise<void>;
}
