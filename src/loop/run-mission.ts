import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../core/check.js';
import { declaredOutputsCheck } from '../checks/declared-outputs-check.js';
import type { Finding } from '../core/finding.js';
import { buildChecks } from '../build/build-checks.js';
import { SCOPE_CHECK, scopeCheck } from '../checks/scope-check.js';
import { LedgerError } from '../errors/ledger-error.js';
import { MissionError } from '../errors/mission-error.js';
import { WorkspaceUnreadableError } from '../errors/workspace-unreadable-error.js';
import { ProposerError } from '../errors/proposer-error.js';
import { budgets as budgetGuards } from '../guards/budget.js';
import {
  evaluatePolicy,
  policyLookback,
  type AttemptSummary,
  type BudgetLimits,
  type Guard,
  type RunCounters,
  type StopVerdict,
} from '../guards/guard.js';
import { AdaptivePriors } from '../guards/adaptive-priors.js';
import { buildPolicy, defaultGuards, needsPriors } from '../guards/spec.js';
import { handOff, planHandoff, reportRun, type Handoff, type HandoffPlan } from '../handoff/handoff.js';
import type { Decision, Judge } from '../judge/judge.js';
import { buildJudge } from '../build/build-judge.js';
import { validateDecision } from '../judge/validate-decision.js';
import type { Ledger, RunRecord } from '../ledger/ledger.js';
import { recordsOf, type DecisionRecordData, type RunRecordBody } from '../ledger/run-records.js';
import { MemoryLedger } from '../ledger/memory/memory-ledger.js';
import { priorsFailure } from '../ledger/priors.js';
import { sealSignature, type Signer } from '../ledger/seal-signature.js';
import { missionHash, setsMaxAttempts, type Mission } from '../mission/mission.js';
import { buildProposer } from '../build/build-proposer.js';
import {
  PROPOSER_PROTOCOL,
  type BudgetsLeft,
  type Proposal,
  type Proposer,
  type ProposerSandbox,
  type ProposerWorkspace,
} from '../proposers/proposer.js';
import { reportedUsage, validateProposal } from '../proposers/validate-proposal.js';
import { Aborted, raceSignal } from './abort.js';
import { evaluateAcceptance } from '../core/acceptance.js';
import { makeBrief, type Brief } from '../core/brief.js';
import { applyProposal, Baseline, EMPTY_CANDIDATE, type Candidate } from '../core/candidate.js';
import { StopReason, type Outcome, type Verification } from '../core/outcome.js';
import { environmentVerdict } from './environment.js';
import { madeProgress, type Frontier } from './progress.js';
import { unreachableVerdict } from './unreachable.js';
import { runChecks, skipAll } from './run-checks.js';
import type { ShadowResult } from '../core/shadow-verdict.js';
import { runShadow } from './shadow.js';
import { normalPath } from '../core/candidate.js';
import { linksOutside } from '../workspace/links-outside.js';
import { RunWorkspace, type RunWorkspaceOptions } from '../workspace/run-workspace.js';
import { sandboxProblem } from '../process/sandbox-problem.js';
import { setLongTimeout } from '../process/long-timeout.js';
import { completedChecks, failingCodes, planHash, rejectionFingerprint, stateSignature } from './signature.js';
import { admitPlan } from './plan-admission.js';
import { runPlanOf } from './run-plan.js';

/** How many state signatures the proposer sees. */
const SIGNATURES_SHOWN = 8;

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
   * Signs the seal (Ed25519) over the chain it closes; without one the seal is unsigned.
   * @example signer: keySigner(await readPrivateKey('signing-key.pem'))
   */
  readonly signer?: Signer;
  readonly signal?: AbortSignal;
  /** Sees every record right after it is appended (progress display). */
  readonly onRecord?: (record: RunRecord) => void;
  /**
   * The human review queue: its mode and the feedback tuner set the attempt budget, and the run's brief is
   * enqueued at the seal when the run could not be verified (or is sampled).
   */
  readonly handoff?: Handoff;
  /**
   * Where runs keep their snapshot and copies (`<scratchDir>/redline-runs/<runId>/`, removed at the seal).
   * @default process.env.REDLINE_SCRATCH ?? os.tmpdir()
   */
  readonly scratchDir?: string;
  /**
   * How the caller chose the review queue, recorded in `run.started` as `review`: `requested` (`--review`),
   * `default` (the ledger has a queue, so an unverified run goes to it), `opted_out` (`--no-review`).
   */
  readonly review?: 'requested' | 'default' | 'opted_out';
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

/** Paths of `workspace.changed_during_run` kept in the seal record; the count says how many there were. */
const CHANGED_PATHS_RECORDED = 100;

/** The bounded working state: its size does not depend on how many attempts ran. */
export interface WorkingState {
  attempt: number;
  candidate: Candidate;
  findings: readonly Finding[];
  counters: RunCounters;
  recent: AttemptSummary[];
  signatures: string[];
  frontier: Frontier;
}

/** The checks a run of the mission runs, in order: scope, declared outputs, the mission's own, then custom ones. */
export function checkPlan(mission: Mission, fromSpec: readonly Check[], custom: readonly Check[]): Check[] {
  const plan = [
    ...(mission.workspaceDir === undefined ? [] : [scopeCheck(mission.scope)]),
    ...(mission.declaredOutputs.length > 0 ? [declaredOutputsCheck(mission.declaredOutputs)] : []),
    ...fromSpec,
    ...custom,
  ];
  const seen = new Set<string>();
  for (const check of plan) {
    if (seen.has(check.name)) throw new TypeError(`Expected unique check names, got "${check.name}" twice`);
    seen.add(check.name);
  }
  return plan;
}

/**
 * Refuses, before anything is recorded, a mission whose workspace is missing or is the file system's root,
 * whose sandbox cannot be had, or whose budgets cannot be measured.
 */
async function assertRunnable(mission: Mission, proposer: Proposer): Promise<void> {
  const issues = [];
  if (
    mission.workspaceDir !== undefined &&
    !(await stat(mission.workspaceDir).then(
      (info) => info.isDirectory(),
      () => false,
    ))
  ) {
    issues.push({
      path: 'workspace',
      expected: 'an existing directory',
      got: mission.workspaceDir,
      message: `the workspace ${mission.workspaceDir} is not a directory`,
    });
  } else if (mission.workspaceDir !== undefined && path.parse(mission.workspaceDir).root === mission.workspaceDir) {
    issues.push({
      path: 'workspace',
      expected: 'a project directory',
      got: mission.workspaceDir,
      message: `the workspace ${mission.workspaceDir} is the root of the file system: snapshotting and copying it is refused`,
    });
  }
  const sandbox = sandboxOf(mission);
  const unavailable = sandbox === undefined ? undefined : await sandboxProblem({ kind: 'bwrap', writable: [], network: false });
  if (unavailable !== undefined)
    issues.push({ path: 'sandbox', expected: 'bubblewrap (bwrap) available', got: 'bwrap unavailable', message: unavailable });
  if (mission.budgets.maxTokens !== undefined && !proposer.capabilities.reportsTokens) {
    issues.push({
      path: 'budgets.maxTokens',
      expected: 'a proposer that reports token usage',
      got: `proposer ${proposer.name}`,
      message: `a token budget cannot be measured: proposer ${proposer.name} does not report token usage`,
    });
  }
  if (mission.budgets.maxCostUsd !== undefined && !proposer.capabilities.reportsCost) {
    issues.push({
      path: 'budgets.maxCostUsd',
      expected: 'a proposer that reports cost',
      got: `proposer ${proposer.name}`,
      message: `a cost budget cannot be measured: proposer ${proposer.name} does not report cost (set a model price or reportsCost)`,
    });
  }
  if (issues.length > 0) throw new MissionError({ source: mission.id, issues });
}

/**
 * The run's snapshot and check copy. A workspace that cannot be read whole is the mission's problem,
 * reported before anything is recorded, like a missing workspace.
 */
async function startWorkspace(mission: Mission, options: RunWorkspaceOptions): Promise<RunWorkspace> {
  try {
    return await RunWorkspace.start(options);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!(error instanceof WorkspaceUnreadableError) && code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOENT' && code !== 'ENOTDIR')
      throw error;
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'workspace',
          expected: 'a workspace redline can read whole into its snapshot',
          got: options.workspace,
          message: (error as Error).message,
        },
      ],
    });
  }
}

/** The OS sandbox of the mission, if any: whether proposers and checks may use the network. */
function sandboxOf(mission: Mission): { proposer: ProposerSandbox; checks: ProposerSandbox } | undefined {
  if (mission.sandbox === 'none') return undefined;
  const network = mission.sandbox === 'bwrap' ? 'none' : mission.sandbox.network;
  return { proposer: { kind: 'bwrap', network: network !== 'none' }, checks: { kind: 'bwrap', network: network === 'all' } };
}

function frontierOf(
  candidate: Candidate,
  findings: readonly Finding[],
  required: ReadonlySet<string>,
  promotion: ReadonlySet<string>,
  previousBest: number | undefined,
): Frontier {
  const scores = findings.flatMap((item) => (item.score === undefined ? [] : [item.score]));
  const best = Math.max(previousBest ?? -Infinity, ...scores);
  return {
    completed: completedChecks(findings),
    failing: failingCodes(findings, required),
    hardFailing: failingCodes(findings, promotion),
    footprint: candidate.footprint.length,
    ...(Number.isFinite(best) ? { bestScore: best } : {}),
  };
}

/** Where a recovered run picks up, rebuilt from its records (see `resume.ts`). */
export interface ResumePoint {
  readonly runId: string;
  /** Records already stored. */
  readonly seq: number;
  readonly state: WorkingState;
  /** What the last stored record leaves to do. */
  readonly next: 'baseline' | 'decide' | 'attempt' | { readonly apply: RecordedDecision };
  /** Checks the run started with, by name, in order: a resumed run must run the same plan. */
  readonly checkNames: readonly string[];
  /** The review queue's plan the run started with, if it had one. */
  readonly handoffPlan?: HandoffPlan;
  /** The manifest hash of the workspace snapshot the run started with (runs recorded before snapshots: none). */
  readonly manifestHash?: string;
}

/** A decision record whose transition was recorded but not carried out before a crash. */
export type RecordedDecision = Pick<DecisionRecordData, 'verdict' | 'decision' | 'rejection' | 'overridden'>;

/** The state of a run before its first record. */
export function initialState(): WorkingState {
  return {
    attempt: 0,
    candidate: EMPTY_CANDIDATE,
    findings: [],
    counters: { attempts: 0, inputTokens: 0, outputTokens: 0, costUsd: 0, elapsedMs: 0, sinceProgress: 0, failedRounds: 0 },
    recent: [],
    signatures: [],
    frontier: { completed: [], failing: [], hardFailing: [], footprint: 0 },
  };
}

/** Who runs a run: recorded so that recovery can tell a crashed run from a live one. */
export function ownerInfo(): { host: string; pid: number } {
  return { host: hostname(), pid: process.pid };
}

/**
 * Runs one mission: Propose → Check → Decide → (Refine | Seal), until a transition seals the run.
 * The user's workspace is never modified; every event goes to the ledger.
 * @throws {MissionError} before anything is recorded, when the mission cannot run as given.
 * @throws {LinkError} before anything is recorded, when `resolves` names a run this one cannot resolve.
 * @throws {SamePlanError} before anything is recorded, when the same plan thrashed on this mission before.
 */
export function runMission(options: RunMissionOptions): Promise<RunResult> {
  return executeRun(options);
}

/** What the ledger's finished runs of a task type taught `adaptive`. */
async function loadPriors(ledger: Ledger, taskType: string): Promise<AdaptivePriors> {
  const entry = await ledger.priors(taskType);
  return AdaptivePriors.from(entry === undefined ? {} : { [taskType]: entry });
}

/** The observed score of each recorded attempt, by attempt index. */
function recordedScores(records: readonly RunRecord[]): (number | undefined)[] {
  const scores: (number | undefined)[] = [];
  for (const { data } of recordsOf(records, 'attempt')) scores[data.attempt - 1] = data.summary?.score;
  return scores;
}

/**
 * Teaches the ledger's adaptive priors a sealed run: the scores of attempts 1, 2, … up to the first
 * attempt without one. It runs after the seal, so it cannot change the sealed run, and nothing more is
 * recorded to it. A failure is not swallowed: it surfaces as a `LedgerError`, which the loop rethrows
 * like any ledger write it cannot make (the ledger is broken); the sealed run and its outcome stand in
 * the ledger.
 */
async function learnFrom(ledger: Ledger, taskType: string, scores: readonly (number | undefined)[]): Promise<void> {
  const end = scores.findIndex((score) => score === undefined);
  const observed = (end === -1 ? scores : scores.slice(0, end)) as number[];
  if (observed.length === 0) return;
  try {
    await ledger.learn(taskType, observed);
  } catch (error) {
    throw priorsFailure(error, taskType);
  }
}

/** The loop, for a new run or one resumed from its records. */
export async function executeRun(options: RunMissionOptions, resume?: ResumePoint): Promise<RunResult> {
  const { mission, ledger = new MemoryLedger(), approvals = [], onRecord } = options;
  const now = options._internal?.now ?? Date.now;
  const proposer = options.proposer ?? (await buildProposer(mission));
  const judge = options.judge ?? (await buildJudge(mission, options.handoff === undefined ? {} : { queue: options.handoff.queue }));
  await assertRunnable(mission, proposer);
  const runPlan = runPlanOf(mission, proposer);
  // A new run's plan and link are decided before anything is recorded; a resumed run started with them.
  const admitted =
    resume === undefined
      ? await admitPlan({
          ledger,
          missionId: mission.id,
          plan: runPlan,
          resolves: options.resolves,
          note: options.note,
          forceSamePlan: options.forceSamePlan,
        })
      : {};
  // Shadow checks are not part of the loop's plan: no signature, frontier, acceptance or judge ever sees them.
  const allChecks = checkPlan(mission, await buildChecks(mission), options.checks ?? []);
  const checks = allChecks.filter((item) => item.shadow !== true);
  const shadowChecks = allChecks.filter((item) => item.shadow === true);
  const specs = mission.stopPolicy.guards ?? defaultGuards();
  // `adaptive` stops on what finished runs of this task type taught it: loaded once, before the first attempt
  // (a resumed run loads them again, and sees what runs sealed in between taught).
  const priors = options.guards === undefined && needsPriors(specs) ? await loadPriors(ledger, mission.taskType) : undefined;
  const guards = [...budgetGuards(), ...(options.guards ?? buildPolicy(specs, priors === undefined ? {} : { priors }))];
  const lookback = Math.max(policyLookback(guards), mission.progressWindow);
  const required = new Set(checks.filter((check) => check.required).map((check) => check.name));
  const promotion = new Set(checks.filter((check) => check.required && check.stage === 'promotion').map((check) => check.name));
  const plan = planHash(checks);
  const startHash = missionHash(mission);
  // A resumed run keeps the budget it started with, with or without a queue now; a new one asks the queue.
  // A run started without one stays without one.
  const handoffPlan =
    resume !== undefined
      ? resume.handoffPlan
      : options.handoff === undefined
        ? undefined
        : await planHandoff(options.handoff, setsMaxAttempts(mission) ? mission.budgets.maxAttempts : undefined);
  const limits: BudgetLimits = {
    maxAttempts: handoffPlan?.maxAttempts ?? mission.budgets.maxAttempts,
    ...(mission.budgets.maxTokens === undefined ? {} : { maxTokens: mission.budgets.maxTokens }),
    ...(mission.budgets.maxWallClock === undefined ? {} : { maxWallClockMs: mission.budgets.maxWallClock }),
    ...(mission.budgets.maxCostUsd === undefined ? {} : { maxCostUsd: mission.budgets.maxCostUsd }),
  };
  if (resume !== undefined && resume.checkNames.join('\n') !== checks.map((check) => check.name).join('\n')) {
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'checks',
          expected: `the checks the run started with (${resume.checkNames.join(', ')})`,
          got: checks.map((check) => check.name).join(', '),
          message: 'a resumed run must run the same check plan',
        },
      ],
    });
  }
  const runId = resume?.runId ?? options._internal?.generateId?.() ?? randomUUID();
  // A resumed run's clock goes on from the elapsed time it recorded; the snapshot counts.
  const startedAt = now() - (resume?.state.counters.elapsedMs ?? 0);
  const sandbox = sandboxOf(mission);
  // The baseline: the workspace as it is now, read once into the run's snapshot; checks never see the live tree.
  const workspaceOptions =
    mission.workspaceDir === undefined
      ? undefined
      : {
          runId,
          workspace: mission.workspaceDir,
          ignore: mission.ignore,
          ...(options.scratchDir === undefined ? {} : { scratchDir: options.scratchDir }),
        };
  const files =
    workspaceOptions === undefined
      ? undefined
      : resume === undefined || resume.manifestHash === undefined
        ? await startWorkspace(mission, workspaceOptions)
        : await RunWorkspace.resume({ ...workspaceOptions, manifestHash: resume.manifestHash });
  const snapshotMs = now() - startedAt - (resume?.state.counters.elapsedMs ?? 0);
  /** What the last reset of the check copy cost, for the attempt record. */
  let isolation: Record<string, number> | undefined;
  /** The record's `isolation` field: read through a function, as checks set it. */
  const isolationField = () => (isolation === undefined ? {} : { isolation });
  const baseline = new Baseline(files === undefined ? undefined : (file) => files.snapshot.text(file));
  const proposerWorkspace: ProposerWorkspace | undefined =
    files === undefined
      ? undefined
      : {
          baselineFiles: () => files.baselineFiles(),
          prepare: (candidateFiles) => files.agentCopy(candidateFiles),
          changes: (changeOptions) => files.agentChanges(changeOptions),
        };
  let sealed = false;

  // The wall-clock budget is enforced while a proposer, check or judge runs, not only between attempts.
  const wallClock = new AbortController();
  const timer =
    limits.maxWallClockMs === undefined
      ? undefined
      : setLongTimeout({
          delayMs: limits.maxWallClockMs - (now() - startedAt),
          onTimeout: () => wallClock.abort(StopReason.budgetWallClock),
        });
  const signal = options.signal === undefined ? wallClock.signal : AbortSignal.any([wallClock.signal, options.signal]);

  let seq = resume?.seq ?? 0;
  /** The hash of the newest record this process appended: every run appends one (started or resumed) before it can seal. */
  let lastHash: string | undefined;
  const record = async (body: RunRecordBody): Promise<void> => {
    const unsigned: RunRecord = { runId, seq, at: now(), ...body };
    // The seal is signed over the hash of the record before it, which chains every record of the run.
    const entry: RunRecord =
      unsigned.type === 'run.sealed' && options.signer !== undefined
        ? {
            ...unsigned,
            data: { ...unsigned.data, signature: sealSignature({ signer: options.signer, prevHash: lastHash as string, seal: unsigned }) },
          }
        : unsigned;
    lastHash = (await ledger.append(entry)).hash;
    seq += 1;
    onRecord?.(entry);
  };

  const state: WorkingState = resume?.state ?? initialState();
  /** The observed score of each attempt this process ran, by attempt index, for {@link learnFrom}. */
  const observedScores: (number | undefined)[] = [];

  const check = async (candidate: Candidate, attempt: number): Promise<Finding[]> => {
    const context = { candidate, goal: mission.goal, attempt, signal, ...(sandbox === undefined ? {} : { sandbox: sandbox.checks }) };
    if (files === undefined) return raceSignal(runChecks(checks, context), signal);
    // The scope is checked before any of the candidate is written anywhere.
    const scope = checks.find((item) => item.name === SCOPE_CHECK);
    const scopeFindings = scope === undefined ? [] : await scope.run(context);
    if (scopeFindings.some((item) => item.status !== 'pass'))
      return [
        ...scopeFindings,
        ...skipAll(
          checks.filter((item) => item !== scope),
          'scope_violation',
        ),
      ];
    // Not raced with the signal: a reset is bounded by the tree's size, and a stopped run disposes the copy after it.
    const resetStarted = performance.now();
    const copy = await files.checkCopy(candidate.files);
    isolation = { resetMs: Math.round(performance.now() - resetStarted), ...copy.report };
    return raceSignal(runChecks(checks, { ...context, dir: copy.dir }), signal);
  };

  /** The seal's account of the workspace: the baseline of the sealed files, and what changed in the live tree. */
  const workspaceAtSeal = async (): Promise<{ data: Record<string, unknown>; changed: string[] }> => {
    if (files === undefined) return { data: {}, changed: [] };
    const baselineData = { baseline: { manifest: files.snapshot.hash, files: files.baselineOf(state.candidate.footprint) } };
    let changed: string[];
    try {
      changed = await files.liveChanges();
    } catch (error) {
      return {
        data: { ...baselineData, evidence: [{ code: 'workspace.unreadable_at_seal', message: (error as Error).message }] },
        changed: [],
      };
    }
    if (changed.length === 0) return { data: baselineData, changed };
    return {
      data: {
        ...baselineData,
        evidence: [{ code: 'workspace.changed_during_run', count: changed.length, paths: changed.slice(0, CHANGED_PATHS_RECORDED) }],
      },
      changed,
    };
  };

  /**
   * The shadow checks on the candidate the loop stopped on (the baseline when it made none), in the check
   * copy. Only the caller's signal stops them: a run cut off by its wall-clock budget still gets its verdict.
   */
  const shadowAtSeal = (): Promise<ShadowResult> =>
    runShadow({
      checks: shadowChecks,
      context: {
        candidate: state.candidate,
        goal: mission.goal,
        attempt: state.attempt,
        signal: options.signal ?? new AbortController().signal,
        ...(sandbox === undefined ? {} : { sandbox: sandbox.checks }),
      },
      ...(files === undefined
        ? {}
        : {
            copy: async () => (await files.checkCopy(state.candidate.files)).dir,
            scope: checks.find((item) => item.name === SCOPE_CHECK) as Check,
          }),
    });

  const evidenceFor = async (verdict: StopVerdict | undefined) => {
    const head = await ledger.head(runId);
    const acceptance = evaluateAcceptance({
      checks,
      findings: state.findings,
      approvalsRequired: mission.approvals,
      approvalsGiven: approvals,
      missionUnchanged: () => missionHash(mission) === startHash,
      recordsAgree: head.count === seq && !head.sealed,
    });
    return {
      mission,
      attempt: state.attempt,
      candidate: state.candidate,
      findings: state.findings,
      acceptance,
      ...(verdict === undefined ? {} : { verdict }),
    };
  };

  const seal = async (outcome: Outcome, stopReason: string, detail: string, guard?: string): Promise<RunResult> => {
    timer?.clear();
    const verification: Verification =
      outcome === 'complete_noop'
        ? 'verified'
        : outcome === 'complete'
          ? checks.some((item) => item.required && item.tier === 'demand')
            ? 'verified'
            : 'sampled'
          : 'unverified';
    const counters = { ...state.counters, elapsedMs: now() - startedAt };
    const fullBrief = makeBrief({
      runId,
      task: mission.goal,
      priority: mission.priority,
      candidate: state.candidate,
      cutoffReason: `${stopReason}: ${detail}`,
      attempts: state.attempt,
      verification,
      findings: state.findings,
      stripPatterns: mission.brief?.stripPatterns,
    });
    const brief = outcome === 'blocked' || verification === 'unverified' ? fullBrief : undefined;
    // Enqueued before the seal is written, so the seal records what the queue did; a crash in between
    // re-enqueues on resume, which the queue ignores for a run it already holds.
    const handoff =
      options.handoff === undefined || handoffPlan === undefined
        ? undefined
        : await handOff(options.handoff, { runId, outcome, verification, stopReason, brief: fullBrief }, handoffPlan);
    const workspace = await workspaceAtSeal();
    const shadow = shadowChecks.length === 0 ? undefined : await shadowAtSeal();
    await record({
      type: 'run.sealed',
      data: {
        outcome,
        verification,
        stopReason,
        detail,
        ...(guard === undefined ? {} : { guard }),
        attempts: state.attempt,
        candidateHash: state.candidate.hash,
        counters,
        ...(brief === undefined ? {} : { brief }),
        ...(handoff === undefined ? {} : { handoff }),
        ...workspace.data,
        ...(shadow === undefined ? {} : { shadow }),
      },
    });
    sealed = true;
    if (options.handoff !== undefined && handoffPlan !== undefined) await reportRun(options.handoff, { runId, stopReason });
    // A resumed run's earlier attempts ran in another process: their scores are in the records.
    await learnFrom(ledger, mission.taskType, resume === undefined ? observedScores : recordedScores(await ledger.records(runId)));
    return {
      runId,
      mission: mission.id,
      outcome,
      verification,
      stopReason,
      detail,
      ...(guard === undefined ? {} : { guard }),
      attempts: state.attempt,
      candidate: state.candidate,
      findings: state.findings,
      counters,
      ...(brief === undefined ? {} : { brief }),
      ...(workspace.changed.length === 0 ? {} : { workspaceChanged: workspace.changed }),
      ...(shadow === undefined ? {} : { shadow }),
    };
  };

  const stopped = (): Promise<RunResult> =>
    wallClock.signal.aborted
      ? seal(
          'failed_with_evidence',
          StopReason.budgetWallClock,
          `the ${limits.maxWallClockMs} ms wall-clock budget ran out during attempt ${state.attempt}`,
          'wallClock',
        )
      : seal('failed_with_evidence', StopReason.aborted, `the run was stopped by its caller during attempt ${state.attempt}`);

  /** Carries out a (recorded) decision: returns the sealed result, or undefined to refine. */
  const apply = ({ verdict, decision, rejection, overridden }: RecordedDecision): Promise<RunResult> | undefined => {
    if (rejection !== undefined) {
      const outcome = mission.stopPolicy.onRejectedDecision === 'block' ? 'blocked' : 'failed_with_evidence';
      return seal(outcome, StopReason.invalidDecision, `${rejection.code}: ${rejection.message}`, judge.name);
    }
    const chosen = decision as Decision;
    if (overridden === true && verdict !== undefined) return seal(verdict.outcome, verdict.reason, verdict.detail, verdict.guard);
    switch (chosen.transition) {
      case 'retry':
        return undefined;
      case 'accept':
        return seal('complete', chosen.reason, chosen.detail ?? '', verdict?.outcome === 'complete' ? verdict.guard : undefined);
      case 'noop':
        return seal('complete_noop', chosen.reason, chosen.detail ?? '');
      case 'block':
        return seal('blocked', chosen.reason, chosen.detail ?? '', verdict?.guard);
      case 'fail':
        return seal('failed_with_evidence', chosen.reason, chosen.detail ?? '', verdict?.guard);
    }
  };

  /** Asks the judge, validates and records its decision, then carries it out. */
  const decide = async (verdict: StopVerdict | undefined): Promise<RunResult | undefined> => {
    const evidence = await evidenceFor(verdict);
    let validated: ReturnType<typeof validateDecision>;
    try {
      validated = validateDecision(
        await raceSignal(
          Promise.resolve().then(() => judge.decide(evidence, { signal, runId })),
          signal,
        ),
        evidence,
      );
    } catch (error) {
      if (error instanceof Aborted) throw error;
      validated = {
        rejection: { code: 'decision.judge_failed', message: `the judge threw: ${(error as Error)?.message ?? String(error)}` },
      };
    }
    const rejection = 'rejection' in validated ? validated.rejection : undefined;
    const decision = 'decision' in validated ? validated.decision : undefined;
    // A stop verdict other than "complete" binds: a judge cannot retry past a breaker.
    const overridden = decision?.transition === 'retry' && verdict !== undefined && verdict.outcome !== 'complete';
    const recorded: RecordedDecision = {
      ...(verdict === undefined ? {} : { verdict }),
      ...(decision === undefined ? {} : { decision }),
      ...(rejection === undefined ? {} : { rejection }),
      ...(overridden ? { overridden: true } : {}),
    };
    await record({
      type: 'decision',
      data: {
        attempt: state.attempt,
        ...recorded,
        acceptance: evidence.acceptance,
        state: { counters: state.counters, frontier: state.frontier, recentAttempts: state.recent.map((summary) => summary.attempt) },
      },
    });
    return apply(recorded);
  };

  const policyVerdict = (): StopVerdict | undefined =>
    evaluatePolicy(guards, {
      recent: state.recent,
      counters: state.counters,
      budgets: limits,
      progressWindow: mission.progressWindow,
      taskType: mission.taskType,
    });

  try {
    let result: RunResult | undefined;
    if (resume === undefined) {
      await record({
        type: 'run.started',
        data: {
          mission,
          missionHash: startHash,
          plan: runPlan,
          ...admitted,
          proposer: proposer.name,
          judge: judge.name,
          guards: guards.map((guard) => guard.name),
          checks: checks.map(({ name, stage, tier, required: isRequired }) => ({ name, stage, tier, required: isRequired })),
          approvals,
          lookback,
          owner: ownerInfo(),
          ...(handoffPlan === undefined ? {} : { handoff: handoffPlan }),
          ...(files === undefined
            ? {}
            : {
                workspace: {
                  manifest: files.snapshot.hash,
                  entries: files.snapshot.manifest.size,
                  ignore: mission.ignore,
                  snapshotMs,
                  ...linksOutside(files.snapshot.manifest),
                },
              }),
          ...(sandbox === undefined ? {} : { sandbox: mission.sandbox }),
          ...(options.review === undefined ? {} : { review: options.review }),
        },
      });
      files?.markRecorded();
    } else {
      await record({
        type: 'run.resumed',
        data: {
          fromSeq: resume.seq,
          next: typeof resume.next === 'string' ? resume.next : 'apply',
          owner: ownerInfo(),
        },
      });
      files?.markRecorded();
    }
    const next = resume?.next ?? 'baseline';

    // Before any proposal: a mission no candidate in scope can satisfy blocks at once (decided from the mission and
    // the snapshot alone, so a resumed run decides the same).
    const unreachable =
      next === 'baseline' && files !== undefined
        ? unreachableVerdict({ mission, inBaseline: (file) => files.snapshot.manifest.has(file) })
        : undefined;
    if (unreachable !== undefined) {
      result = await seal(unreachable.outcome, unreachable.reason, unreachable.detail, unreachable.guard);
    } else if (next === 'baseline' && checks.some((item) => item.required && item.tier === 'demand')) {
      // Baseline: when a demand red line already holds, no candidate is needed; when a required check cannot run
      // on it (environment), none would help.
      state.findings = await check(EMPTY_CANDIDATE, 0);
      state.frontier = frontierOf(EMPTY_CANDIDATE, state.findings, required, promotion, undefined);
      await record({
        type: 'baseline',
        data: { findings: state.findings, frontier: state.frontier, ...isolationField() },
      });
      result = await decide(environmentVerdict(checks, state.findings));
    } else if (next === 'decide') {
      result = await decide(state.attempt === 0 ? environmentVerdict(checks, state.findings) : policyVerdict());
    } else if (typeof next === 'object') {
      result = await apply(next.apply);
    }
    if (result !== undefined) return result;

    do {
      state.attempt += 1;
      isolation = undefined;
      const budgetsLeft: BudgetsLeft = {
        attempts: limits.maxAttempts - state.attempt + 1,
        ...(limits.maxTokens === undefined ? {} : { tokens: limits.maxTokens - state.counters.inputTokens - state.counters.outputTokens }),
        ...(limits.maxWallClockMs === undefined ? {} : { wallClockMs: limits.maxWallClockMs - (now() - startedAt) }),
        ...(limits.maxCostUsd === undefined ? {} : { costUsd: limits.maxCostUsd - state.counters.costUsd }),
      };
      let proposal: Proposal | undefined;
      let next: Candidate | undefined;
      let proposerError: ProposerError | undefined;
      try {
        const raw = await raceSignal(
          proposer.propose(
            {
              protocol: PROPOSER_PROTOCOL,
              mission,
              attempt: state.attempt,
              state: {
                candidate: state.attempt === 1 ? null : state.candidate,
                findings: state.findings,
                budgetsLeft,
                completedChecks: state.frontier.completed,
                recentSignatures: state.signatures,
              },
            },
            {
              signal,
              ...(proposerWorkspace === undefined ? {} : { workspace: proposerWorkspace }),
              ...(sandbox === undefined ? {} : { sandbox: sandbox.proposer }),
            },
          ),
          signal,
        );
        proposal = validateProposal(raw);
        // Every path, as proposed on top of the latest candidate, must be writable on the snapshot without leaving it.
        const proposed: Record<string, string | null> = { ...state.candidate.files };
        for (const [file, content] of Object.entries(proposal.files ?? {})) proposed[normalPath(file)] = content;
        const problems = files?.candidateProblems(proposed) ?? [];
        if (problems.length > 0)
          throw new ProposerError({ code: 'proposer.bad_path', message: `the proposal names ${problems.join('; ')}` });
        next = applyProposal(state.candidate, proposal.files, proposal.value, baseline);
      } catch (error) {
        if (error instanceof Aborted) throw error;
        proposerError =
          error instanceof ProposerError
            ? error
            : new ProposerError({
                code: 'proposer.failed',
                message: `the proposer threw: ${(error as Error)?.message ?? String(error)}`,
                cause: error,
              });
      }

      if (proposal !== undefined && next !== undefined) {
        state.candidate = next;
        state.findings = await check(state.candidate, state.attempt);
      } else {
        const error = proposerError as ProposerError;
        state.findings = [
          {
            check: 'proposer',
            stage: 'fast',
            tier: 'format',
            status: 'error',
            reasonCodes: [error.code],
            message: error.message,
            ...(error.output === undefined ? {} : { evidenceRef: error.output }),
          },
          ...skipAll(checks, 'proposer_error'),
        ];
      }

      // A proposal refused after it was made, or a failed agent that reported usage, still spent it.
      const usage = proposal?.usage ?? reportedUsage(proposerError?.usage) ?? {};
      const failing = failingCodes(state.findings, required);
      const infraError = state.findings.some((item) => item.status === 'error');
      const frontier = frontierOf(state.candidate, state.findings, required, promotion, state.frontier.bestScore);
      const progress = !infraError && madeProgress(state.frontier, frontier);
      const signature = stateSignature(state.candidate.hash, plan, frontier.completed, failing);
      const scores = state.findings.flatMap((item) => (item.score === undefined ? [] : [item.score]));
      const summary: AttemptSummary = {
        attempt: state.attempt,
        candidateHash: state.candidate.hash,
        signature,
        rejection: rejectionFingerprint(failing),
        ...(scores.length === 0 ? {} : { score: Math.min(...scores) }),
        failing: failing.length,
        failed: state.findings.some((item) => required.has(item.check) && item.status === 'fail'),
        infraError,
        progress,
      };
      if (!infraError) state.frontier = frontier;
      state.counters = {
        attempts: state.attempt,
        inputTokens: state.counters.inputTokens + (usage.inputTokens ?? 0),
        outputTokens: state.counters.outputTokens + (usage.outputTokens ?? 0),
        costUsd: state.counters.costUsd + (usage.costUsd ?? 0),
        elapsedMs: now() - startedAt,
        sinceProgress: infraError ? state.counters.sinceProgress : progress ? 0 : state.counters.sinceProgress + 1,
        failedRounds: state.counters.failedRounds + (summary.failed ? 1 : 0),
      };
      state.recent.push(summary);
      observedScores[state.attempt - 1] = summary.score;
      if (state.recent.length > lookback) state.recent.shift();
      state.signatures.push(signature);
      if (state.signatures.length > SIGNATURES_SHOWN) state.signatures.shift();

      await record({
        type: 'attempt',
        data: {
          attempt: state.attempt,
          candidate: state.candidate,
          ...(Object.keys(usage).length === 0 ? {} : { usage }),
          findings: state.findings,
          summary,
          counters: state.counters,
          frontier: state.frontier,
          ...isolationField(),
        },
      });

      result = await decide(policyVerdict());
      // Refine while the judge chose `retry` and no binding stop verdict came; every other transition sealed the run.
    } while (result === undefined);
    return result;
  } catch (error) {
    if (error instanceof Aborted) return stopped();
    // Whatever broke, the run is sealed with the evidence gathered so far; only a ledger that cannot be written rethrows.
    if (error instanceof LedgerError || seq === 0) throw error;
    return seal('failed_with_evidence', StopReason.runtimeError, `attempt ${state.attempt}: ${(error as Error)?.message ?? String(error)}`);
  } finally {
    timer?.clear();
    // An unsealed run (the ledger failed) keeps its snapshot for recovery to resume from.
    if (sealed) await files?.dispose();
    else await files?.close();
  }
}
