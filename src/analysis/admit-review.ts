import type { ReviewEntry } from '../review/types.js';
import type { AdmissionSource } from './admit-source.js';

/** What admission refuses of a run's review, unless forced: a stable code and the reason, as printed. */
export interface ReviewRefusal {
  readonly code: 'admit.shadow_failed' | 'admit.not_approved';
  readonly reason: string;
}

/** The reviewer who approved a `sampled` run, on which item. */
export interface Approval {
  readonly itemId: string;
  readonly reviewer: string;
}

/** Looks up a review item of the run's ledger's queue; undefined when the queue has no such item (or there is no queue). */
export type ReviewItemLookup = (itemId: string) => Promise<ReviewEntry | undefined>;

/** Why a `sampled` run has no approval, or the approval it has. */
async function approvalOf(source: AdmissionSource, lookUp: ReviewItemLookup | undefined): Promise<ReviewRefusal | Approval> {
  const refuse = (why: string): ReviewRefusal => ({
    code: 'admit.not_approved',
    reason: `accepted on incomplete signals (sampled) and not approved by a reviewer: ${why}`,
  });
  const itemId = source.reviewItemId;
  if (itemId === undefined) return refuse('the sample did not send it to review');
  const entry = lookUp === undefined ? undefined : await lookUp(itemId);
  if (entry === undefined) return refuse(`its review item ${itemId} is not in the ledger's review queue`);
  const { verdict } = entry;
  if (verdict === undefined)
    return refuse(`review item ${itemId} awaits a verdict (redline review verdict ${itemId} --reviewer NAME --approve --label LABEL)`);
  if (verdict.decision !== 'approve') return refuse(`review item ${itemId} was rejected by ${verdict.reviewer} (${verdict.label})`);
  return { itemId, reviewer: verdict.reviewer };
}

/**
 * What a run's review says of its admission (docs/review.md, 'Admission and review'): a failed shadow check
 * refuses it, and so does a `sampled` run that no reviewer approved (never sent to review, awaiting a
 * verdict, or rejected). Returns the refusals, and the approval a sampled run has.
 */
export async function reviewOfRun(
  source: AdmissionSource,
  lookUp: ReviewItemLookup | undefined,
): Promise<{ refusals: readonly ReviewRefusal[]; approval?: Approval }> {
  const refusals: ReviewRefusal[] = [];
  if (source.shadow?.verdict === 'fail')
    refusals.push({
      code: 'admit.shadow_failed',
      reason: `its shadow check failed (${source.shadow.failed.join(', ') || 'a held-out check'}): the held-out evidence says the candidate is wrong`,
    });
  if (source.verification !== 'sampled') return { refusals };
  const approval = await approvalOf(source, lookUp);
  return 'code' in approval ? { refusals: [...refusals, approval] } : { refusals, approval };
}
