import type { Finding } from '../core/finding.js';
import type { Candidate } from '../core/candidate.js';
import type { ProposerAccount } from '../core/proposer-account.js';
import type { Mission } from '../mission/mission.js';

/** Identifies the JSON request format programs receive; stable. */
export const PROPOSER_PROTOCOL = 'redline.proposer/1';

export interface BudgetsLeft {
  readonly attempts: number;
  readonly tokens?: number;
  readonly wallClockMs?: number;
  readonly costUsd?: number;
}

/** The bounded working state a proposer sees: never the whole history. */
export interface ProposalState {
  /** The latest candidate, or null before the first proposal. */
  readonly candidate: Candidate | null;
  /** The exact normalized findings of the latest check set. */
  readonly findings: readonly Finding[];
  readonly budgetsLeft: BudgetsLeft;
  /** Checks that ran (not skipped) on the latest candidate. */
  readonly completedChecks: readonly string[];
  /** The last few state signatures, oldest first. */
  readonly recentSignatures: readonly string[];
}

export interface ProposalRequest {
  readonly protocol: typeof PROPOSER_PROTOCOL;
  readonly mission: Mission;
  readonly attempt: number;
  readonly state: ProposalState;
}

export interface Usage {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly costUsd?: number | undefined;
}

/** A proposer's answer: changed files (`null` deletes) applied on top of the latest candidate, and/or a value. */
export interface Proposal {
  readonly files?: Readonly<Record<string, string | null>> | undefined;
  readonly value?: unknown;
  readonly usage?: Usage | undefined;
  /**
   * How the proposer's program ran, set by the proposer that ran it (`agent`, `command`), never taken from
   * the program's own answer: the loop keeps it in the attempt record.
   */
  readonly account?: ProposerAccount | undefined;
}

/** What a proposer can report, so that a budget that cannot be measured is refused at start. */
export interface ProposerCapabilities {
  readonly reportsTokens: boolean;
  readonly reportsCost: boolean;
}

/** One file of the run's snapshot, read on demand. */
export interface BaselineFile {
  readonly file: string;
  readonly size: number;
  read(): Buffer;
}

/** What the loop offers proposers of missions with a workspace: the run's baseline, and a copy to edit in place. */
export interface ProposerWorkspace {
  /** Every file of the run's snapshot (the baseline every candidate applies to), in path order. */
  baselineFiles(): readonly BaselineFile[];
  /** A private copy holding exactly snapshot + `files` (the latest candidate's), to edit in place. */
  prepare(files: Readonly<Record<string, string | null>>): Promise<string>;
  /**
   * What was edited in that copy since `prepare`, as candidate files (`null` = deleted); a RangeError when
   * the changed files hold more than `maxBytes`.
   */
  changes(options?: { readonly maxBytes?: number }): Promise<Record<string, string | null>>;
}

/** The OS sandbox a proposer's programs run in, when the mission asks for one. */
export interface ProposerSandbox {
  readonly kind: 'bwrap';
  readonly network: boolean;
}

export interface ProposeOptions {
  readonly signal: AbortSignal;
  readonly workspace?: ProposerWorkspace;
  readonly sandbox?: ProposerSandbox;
}

/**
 * What a proposer is, for the run's plan hash (`runPlanHash`): two runs of a mission whose proposers have the
 * same identity run the same plan. A stronger model, another agent or a changed prompt is a new identity.
 */
export interface ProposerIdentity {
  /** `command`, `agent`, `model`, `replay`, `function`, or a custom proposer's own kind. */
  readonly kind: string;
  /**
   * What it runs: the model id, or the command line as the plan knows it (secrets redacted, environment
   * assignments dropped, ports and temporary paths as placeholders: `commandIdentity`); or the plan label.
   */
  readonly name: string;
  /** The prompt template (or request format) it renders the request with, by version, when it has one. */
  readonly template?: string;
  /** `true` when `name` is a plan label the user gave (`planLabel`, `--plan-label`) in place of what it runs. */
  readonly label?: true;
}

/** Produces candidates. Throw a {@link ProposerError} (or anything) to record a failed proposal. */
export interface Proposer {
  readonly name: string;
  readonly capabilities: ProposerCapabilities;
  /**
   * What the run's plan hash covers of this proposer.
   * @default { kind: 'custom', name: proposer.name }
   */
  readonly identity?: ProposerIdentity;
  propose(request: ProposalRequest, options: ProposeOptions): Promise<Proposal>;
  /**
   * Whether its `propose` still waits for work that comes from outside the loop and has not begun the
   * attempt (an agent over MCP that has not submitted yet): a run stopped then ends after its last attempt
   * instead of during this one.
   * @default () => false
   */
  idle?(): boolean;
}
