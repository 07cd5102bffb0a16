import type { Brief } from '../core/brief.js';
import type { Candidate } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { Outcome, Verification } from '../core/outcome.js';
import type { ShadowResult } from '../core/shadow-verdict.js';
import type { Guard, RunCounters } from '../guards/guard.js';
import type { RunHandoff } from '../handoff/handoff.js';
import type { ReviewChoice } from '../handoff/review-route.js';
import type { Judge } from '../judge/judge.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import type { Signer } from '../ledger/seal-signature.js';
import type { Mission } from '../mission/mission.js';
import type { Proposer } from '../proposers/proposer.js';
import type { TracerLike } from '../telemetry/tracer.js';

export interface RunMissionOptions {
  readonly mission: Mission;
  /** The proposer; built from `mission.proposer` when absent. */
  readonly proposer?: Proposer;
  /** Custom checks, run after the mission's own; one marked `shadow` runs only at the seal (see {@link Check.shadow}). */
  readonly checks?: readonly Check[];
  /**
   * Built from `mission.judge` when absent (the routing table when the mission names none); a `human` judge
   * asks the handoff's review queue.
   */
  readonly judge?: Judge;
  /** Replaces the stop policy of the mission (budget guards always come first). */
  readonly guards?: readonly Guard[];
  /** @default new MemoryLedger() */
  readonly ledger?: Ledger;
  /** Approvals already given, by name. */
  readonly approvals?: readonly string[];
  /**
   * A sealed `blocked` or `failed_with_evidence` run of the same mission that this run resolves: the new run
   * is linked to it (recorded in `run.started`); the old run is never reopened or appended to.
   */
  readonly resolves?: string;
  /** With `resolves`: the resolution note recorded with the link (what changed). */
  readonly note?: string;
  /**
   * Run even when the newest sealed run of this mission with the same plan (mission + proposer identity)
   * stopped by oscillation, rejection repeat, no progress or the human gate; the override is recorded.
   * Without it such a run is refused with a `SamePlanError` before anything is recorded.
   * @default false
   */
  readonly forceSamePlan?: boolean;
  /**
   * Names the run's plan: the proposer's identity in the plan hash is this label instead of what it runs
   * (recorded in `run.started`'s `plan`). Runs whose commands differ from run to run in ways the plan
   * does not normalise are one plan under one label, and another label is another plan.
   * @default the proposer's own identity
   */
  readonly planLabel?: string;
  /**
   * Signs the seal (Ed25519) over the chain it closes; without one the seal is unsigned.
   * @example signer: keySigner(await readPrivateKey('signing-key.pem'))
   */
  readonly signer?: Signer;
  readonly signal?: AbortSignal;
  /** Sees every record right after it is appended (progress display). */
  readonly onRecord?: (record: RunRecord) => void;
  /**
   * The human review queue: its mode and the feedback tuner set the attempt budget, and the run's brief is
   * enqueued at the seal when the run could not be verified (or is sampled). A deferred one (`{ open }`)
   * shapes nothing and is opened, created, only by a seal that must go to review.
   */
  readonly handoff?: RunHandoff;
  /**
   * Where runs keep their snapshot and copies (`<scratchDir>/redline-runs/<runId>/`, removed at the seal).
   * @default process.env.REDLINE_SCRATCH ?? os.tmpdir()
   */
  readonly scratchDir?: string;
  /**
   * A cache folder whose entry for the workspace keeps the last snapshot and check copy between runs
   * (docs/workspaces.md); without one, each run writes a fresh copy. `redline run` passes one by default.
   */
  readonly cacheDir?: string;
  /** The cache folder's cap, in bytes. @default 4 GiB */
  readonly cacheMaxBytes?: number;
  /**
   * Where the run's snapshot is read from, when not the mission's workspace: a frozen copy of it that
   * nothing writes to (`redline mcp` takes one when its session starts, while the agent edits the
   * workspace). The mission, as recorded and as admission reads it, keeps its own workspace.
   * @default mission.workspaceDir
   */
  readonly snapshotFrom?: string;
  /**
   * How the caller chose the review queue, recorded in `run.started` as `review` (`routeReview` decides it):
   * `requested` (`--review`), `default` (an unverified run goes to the ledger's queue, created when first
   * needed), `opted_out` (`--no-review`).
   */
  readonly review?: ReviewChoice;
  /**
   * The OpenTelemetry tracer the run's spans go to (docs/observability.md). Without one, runs are traced
   * with the registered tracer provider's `redline` tracer when `@opentelemetry/api` is installed and a
   * provider is registered, and not at all otherwise (no span, and the package is not loaded).
   * @example tracer: trace.getTracer('my-app')
   */
  readonly tracer?: TracerLike;
  /**
   * Admits the model calls of the roles built from the mission file (model proposer, judge and score
   * checks) under their endpoints' rate limits; a worker passes the fleet's, shared through PostgreSQL.
   * None: model calls go at once.
   */
  readonly rateLimiter?: RateLimiter;
  /**
   * The run's id, when the caller names it (a worker runs a submission as the run of the same id, so the
   * worker that takes over after a crash finds it). Letters, digits, `.`, `_` and `-`.
   * @default a random UUID
   */
  readonly runId?: string;
  /** Injectable clock and ids for tests and simulations. */
  readonly _internal?: { readonly now?: () => number; readonly generateId?: () => string };
}

export interface RunResult {
  readonly runId: string;
  readonly mission: string;
  readonly outcome: Outcome;
  readonly verification: Verification;
  readonly stopReason: string;
  readonly detail: string;
  /** The guard whose verdict ended the run, if one did. */
  readonly guard?: string;
  readonly attempts: number;
  readonly candidate: Candidate;
  readonly findings: readonly Finding[];
  readonly counters: RunCounters;
  /** For `blocked` and `unverified` runs: what a reviewer needs. */
  readonly brief?: Brief;
  /**
   * Paths of the live workspace that changed while the run ran (compared with its snapshot at the seal).
   * They could not change what the checks saw; the seal records them as `workspace.changed_during_run`.
   */
  readonly workspaceChanged?: readonly string[];
  /** What the mission's shadow checks said of the candidate the loop stopped on (the seal's `shadow`). */
  readonly shadow?: ShadowResult;
}
