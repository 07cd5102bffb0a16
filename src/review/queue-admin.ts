import type { FilterProposal } from './filter-proposal.js';
import type { FilterRule, FilterRuleEntry, FilterRuleInput } from './filter-rules.js';
import type { ForcedAdmission } from './forced-admission.js';

/**
 * The review queue as its administrator sees it (docs/review.md): who may sign in to review, the
 * automatic filter rules that decide items no person has to, and admissions forced past a review. The settings themselves are given when
 * the queue is opened (`ReviewQueueOptions`).
 */
export interface QueueAdmin {
  /**
   * Stores a reviewer by name with the hash of their sign-in token (the web app's `hashToken`), replacing
   * the hash stored for that name before: a new token for a name revokes the old one.
   */
  addReviewer(name: string, tokenHash: string): Promise<void>;
  /** The name of the reviewer whose token hashes to `tokenHash`; undefined for a token no one holds. */
  reviewerByToken(tokenHash: string): Promise<string | undefined>;
  /**
   * Adds an automatic filter rule: from now on an arriving item it matches is decided by it
   * (`EnqueueResult.caught`) instead of waiting for a person. Journaled with the reviewer who added it.
   * Idempotent: an enabled rule with the same label, action and match is returned (`repeated`).
   */
  addFilterRule(input: FilterRuleInput): Promise<{ rule: FilterRule; repeated: boolean }>;
  /** Disables (or enables again) a filter rule; journaled. Rules are never deleted. */
  setFilterRule(id: string, change: { readonly enabled: boolean; readonly by: string }): Promise<FilterRule>;
  /** The filter rules in the order they were added, each with the number of items it caught. */
  filterRules(): Promise<readonly FilterRuleEntry[]>;
  /**
   * The rule a suggestion for `label` would become: what the recent items people gave the label to have
   * in common (task type, stop reason, failing reason codes).
   */
  proposeFilterRule(label: string): Promise<FilterProposal>;
  /**
   * Journals a run admitted with `--force` over its review (an `admission` entry): the override is on
   * the queue's hash chain next to the verdicts. Returns the entry's `seq`.
   */
  recordAdmission(admission: ForcedAdmission): Promise<{ seq: number }>;
}
