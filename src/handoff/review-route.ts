/**
 * How the caller chose the review queue, recorded in `run.started` as `review`: `requested` (`--review`),
 * `default` (the ledger has a queue, so an unverified run goes to it), `opted_out` (`--no-review`).
 */
export type ReviewChoice = 'requested' | 'default' | 'opted_out';

/** Where a run's brief goes at the seal, and what its run records of the choice. */
export interface ReviewRoute {
  /** What `run.started` records; none when no queue was asked for, refused or found. */
  readonly review: ReviewChoice | undefined;
  /** Whether the run hands off to the queue at the seal. */
  readonly handsOff: boolean;
  /**
   * The share of `sampled` runs the handoff enqueues: the caller's when it asked for review (none given:
   * the handoff's default), 0 on the default route.
   */
  readonly sampleRate: number | undefined;
}

/**
 * Routes a run to the review queue (docs/review.md): asked for, it hands off what the run could not verify
 * and samples accepted runs at `sampleRate`; refused, nothing; neither, a queue that already exists takes
 * the unverified runs only — sampling the sampled ones must be asked for. `queueExists` is asked only
 * when the caller neither asked nor refused.
 * @example
 * const route = await routeReview({ requested: undefined, queueExists: () => reviewQueueExists(location) });
 * const handoff = route.handsOff ? { queue, sampleRate: route.sampleRate } : undefined;
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
  if (requested === true) return { review: 'requested', handsOff: true, sampleRate };
  if (requested === false) return { review: 'opted_out', handsOff: false, sampleRate: undefined };
  return (await queueExists())
    ? { review: 'default', handsOff: true, sampleRate: 0 }
    : { review: undefined, handsOff: false, sampleRate: undefined };
}
