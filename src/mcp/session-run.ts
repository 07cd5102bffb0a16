import type { Finding } from '../core/finding.js';
import { BaselineChangedError } from '../errors/baseline-changed-error.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import type { Signer } from '../ledger/seal-signature.js';
import { runMission, type RunResult } from '../loop/run-mission.js';
import type { Mission } from '../mission/mission.js';
import type { BudgetsLeft, Proposal, ProposalRequest } from '../proposers/proposer.js';
import { SubmitProposer } from './submit-proposer.js';

/** How a run of the session ended: sealed with a result, or refused (or broken) with an error. */
export type RunEnd = { readonly result: RunResult } | { readonly error: unknown };

/** What the loop does after a proposal: waits for the next one (the run goes on), or has ended. */
export type AfterProposal = { readonly request: ProposalRequest } | RunEnd;

export interface SessionRunOptions {
  readonly mission: Mission;
  readonly ledger: Ledger;
  readonly signer?: Signer | undefined;
  /** Who submits: the MCP client's name. */
  readonly agent: string;
  /** The manifest hash of the session's baseline: a run whose snapshot differs is stopped. */
  readonly baselineHash: string;
  /** The session's frozen copy of the workspace, which the run's snapshot is read from. */
  readonly snapshotFrom: string;
  readonly scratchDir?: string | undefined;
  /** Run even though the same plan thrashed on the mission before (recorded). */
  readonly forceSamePlan?: boolean | undefined;
  readonly now?: (() => number) | undefined;
}

/**
 * One run of the mission driven by an agent's submits: `runMission` itself, with a {@link SubmitProposer},
 * started at once and running in the background, its baseline checks first. Between submits the loop waits
 * in its proposer; every record it writes passes here, so the session can say where the run stands.
 */
export class SessionRun {
  readonly #proposer: SubmitProposer;
  readonly #stop = new AbortController();
  /** Settles when the run is sealed, or refused before its first record. */
  readonly ended: Promise<RunEnd>;
  #runId: string | undefined;
  #attempts = 0;
  #findings: readonly Finding[] = [];
  #reason: string | undefined;
  #budgetsLeft: BudgetsLeft | undefined;
  #end: RunEnd | undefined;
  readonly #baselineHash: string;
  #changed: BaselineChangedError | undefined;
  /** When the run started; until the loop first asks for a proposal, it is taking its snapshot and checking the baseline. */
  readonly startedAt: number;
  #asked = false;

  constructor({
    mission,
    ledger,
    signer,
    agent,
    scratchDir,
    baselineHash,
    snapshotFrom,
    forceSamePlan,
    now = Date.now,
  }: SessionRunOptions) {
    this.#baselineHash = baselineHash;
    this.#proposer = new SubmitProposer({ agent });
    this.startedAt = now();
    void this.#proposer.requested.then(() => (this.#asked = true));
    this.ended = runMission({
      mission,
      ledger,
      proposer: this.#proposer,
      signal: this.#stop.signal,
      snapshotFrom,
      ...(signer === undefined ? {} : { signer }),
      ...(scratchDir === undefined ? {} : { scratchDir }),
      ...(forceSamePlan === undefined ? {} : { forceSamePlan }),
      onRecord: (record) => this.#saw(record),
    }).then(
      // A run stopped for a changed baseline is sealed `aborted`; the session answers why.
      (result): RunEnd => (this.#end = this.#changed === undefined ? { result } : { error: this.#changed }),
      (error: unknown): RunEnd => (this.#end = { error }),
    );
  }

  #saw(record: RunRecord): void {
    this.#runId ??= record.runId;
    const manifest = record.type === 'run.started' ? record.data.workspace?.manifest : undefined;
    if (manifest !== undefined && manifest !== this.#baselineHash) {
      this.#changed = new BaselineChangedError({ expected: this.#baselineHash, found: manifest });
      this.#stop.abort();
    }
    if (record.type === 'baseline') this.#findings = record.data.findings;
    if (record.type === 'attempt') {
      this.#attempts = record.data.attempt;
      this.#findings = record.data.findings ?? [];
    }
    if (record.type === 'decision') this.#reason = record.data.decision?.reason;
  }

  /** The run's id, once its first record is written. */
  get runId(): string | undefined {
    return this.#runId;
  }

  /**
   * Where the run stands: attempts made, the latest check set's findings, the judge's latest reason, and the
   * budgets left as the loop last gave them to the proposer (none before its first request).
   */
  get position(): {
    readonly attempts: number;
    readonly findings: readonly Finding[];
    readonly reason: string | undefined;
    readonly budgetsLeft: BudgetsLeft | undefined;
  } {
    return { attempts: this.#attempts, findings: this.#findings, reason: this.#reason, budgetsLeft: this.#budgetsLeft };
  }

  /** How the run ended, once it has. */
  get end(): RunEnd | undefined {
    return this.#end;
  }

  /** Whether the run is still starting: its snapshot and baseline checks, before the loop first waits for a submit. */
  get starting(): boolean {
    return !this.#asked && this.#end === undefined;
  }

  /** What the loop does next: ask for a proposal, or end. */
  next(): Promise<AfterProposal> {
    const requested = this.#proposer.requested.then((request) => {
      this.#budgetsLeft = request.state.budgetsLeft;
      return { request };
    });
    return Promise.race([requested, this.ended]);
  }

  /**
   * Hands the waiting loop a proposal and waits for what it makes of it: the next request, or the run's end.
   * @throws {TypeError} when the loop waits for no proposal.
   */
  propose(proposal: Promise<Proposal>): Promise<AfterProposal> {
    this.#proposer.submit(proposal);
    return this.next();
  }

  /** Stops the run (sealed `aborted` by the loop, after the last attempt submitted) and waits for its seal. */
  async stop(): Promise<RunEnd> {
    this.#stop.abort();
    return this.ended;
  }
}
