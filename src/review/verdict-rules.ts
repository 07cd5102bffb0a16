import { assertLabel, type LabelPolicy } from './labels.js';
import { ReviewError } from './review-error.js';
import { assertReviewer } from './review-item.js';
import type { ReviewClaim, Verdict, VerdictInput } from './types.js';

/** Refuses a malformed verdict before anything is read or written. */
export function assertVerdictInput(labels: LabelPolicy, itemId: string, input: VerdictInput): void {
  if (typeof itemId !== 'string' || itemId.length === 0) throw new TypeError(`Expected an item id, got ${JSON.stringify(itemId)}`);
  if (typeof input !== 'object' || input === null) throw new TypeError(`Expected a verdict object, got ${JSON.stringify(input)}`);
  assertReviewer(input.reviewer);
  if (input.decision !== 'approve' && input.decision !== 'reject')
    throw new TypeError(`Expected the decision to be approve or reject, got ${JSON.stringify(input.decision)}`);
  if (input.comment !== undefined && typeof input.comment !== 'string')
    throw new TypeError(`Expected the comment to be a string, got ${JSON.stringify(input.comment)}`);
  assertLabel(labels, input.label, itemId);
}

/** The stored state of the item a verdict is for, as the adapter read it (locked) in its transaction. */
export interface VerdictTarget {
  readonly state: 'open' | 'decided' | 'dropped';
  readonly claim?: ReviewClaim;
  readonly verdict?: Verdict;
}

/**
 * What a verdict request does: `apply` it, or `repeat` the first verdict when it is the same one.
 * Refuses an unknown or dropped item, a verdict that contradicts the first, and an item another
 * reviewer holds under a live claim.
 */
export function verdictAction({
  itemId,
  target,
  input,
  now,
}: {
  itemId: string;
  target: VerdictTarget | undefined;
  input: VerdictInput;
  now: number;
}): { apply: true } | { repeat: Verdict } {
  if (target === undefined) throw new ReviewError({ code: 'review.not_found', itemId, message: `No review item ${itemId}` });
  if (target.state === 'dropped')
    throw new ReviewError({
      code: 'review.dropped',
      itemId,
      message: `Item ${itemId} was dropped at capacity and is in the circuit-breaker log; it takes no verdict`,
    });
  if (target.verdict !== undefined) {
    const first = target.verdict;
    if (
      first.reviewer === input.reviewer &&
      first.decision === input.decision &&
      first.label === input.label &&
      first.comment === input.comment
    )
      return { repeat: first };
    throw new ReviewError({
      code: 'review.verdict_conflict',
      itemId,
      firstVerdict: first,
      message: `Item ${itemId} already has a verdict: ${first.decision} (${first.label}) by ${first.reviewer} at ${new Date(first.decidedAt).toISOString()} (verdict ${first.id})`,
    });
  }
  const claim = target.claim;
  if (claim !== undefined && claim.leaseUntil > now && claim.reviewer !== input.reviewer) {
    throw new ReviewError({
      code: 'review.claimed',
      itemId,
      message: `Item ${itemId} is claimed by ${claim.reviewer} until ${new Date(claim.leaseUntil).toISOString()}`,
    });
  }
  return { apply: true };
}
