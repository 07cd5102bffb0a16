/**
 * How the caller chose the review queue, recorded in `run.started` as `review`: `requested` (`--review`),
 * `default` (neither asked nor refused: an unverified run goes to the ledger's queue, created when first
 * needed), `opted_out` (`--no-review`).
 */
export type ReviewChoice = 'requested' | 'default' | 'opted_out';

/** Where a run's brief goes at the seal, and what its run records of the choice. */
export interface ReviewRoute {
  /** What `run.started` records. */
  readonly review: ReviewChoice;
  /** Whether the run hands off to the queue at the seal. */
  readonly handsOff: boolean;
  /**
   * Whether the queue is opened only by the first seal that needs it (the default route on a ledger that
   * has no queue yet): no queue shapes the run, and a run that needs no review creates none.
   */
  readonly deferred: boolean;
  /** The share of `sampled` runs the handoff enqueues: the caller's, or none given, the handoff's default. */
  readonly sampleRate: number | undefined;
}

/**
 * Routes a run to the review queue (docs/review.md): refused, nothing; otherwise the run hands off what it
 * could not verify and samples its `sampled` outcome at `sampleRate`. Asked for, the queue is opened (created)
 * before the run; by default, a queue the ledger has is, and one it lacks is created by the first seal that
 * needs it. `queueExists` is asked only on the default route.
 * @example
 * const route = await routeReview({ requested: undefined, queueExists: () => reviewQueueExists(location) });
 * const handoff = route.deferred ? { open, sampleRate: route.sampleRate } : { queue, sampleRate: route.sampleRate };
 */
export async function routeReview({
  requested,
  queueExists,
  sampleRate,
}: {
  /** `true`: review asked for; `false`: refused; undefined: neither. */
  readonly requested: boolean | undefined;
  readonly queueExists: () => boolean | Promise<boolean>;
  readonly sampleRate?: number | undefined;
}): Promise<ReviewRoute> {
  if (requested === true) return { review: 'requested', handsOff: true, deferred: false, sampleRate };
  if (requested === false) return { review: 'opted_out', handsOff: false, deferred: false, sampleRate: undefined };
  return { review: 'default', handsOff: true, deferred: !(await queueExists()), sampleRate };
}
