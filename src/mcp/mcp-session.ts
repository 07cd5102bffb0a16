import { buildChecks } from '../roles/build-checks.js';
import { BaselineChangedError } from '../errors/baseline-changed-error.js';
import { Baseline, EMPTY_CANDIDATE } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Signer } from '../ledger/seal-signature.js';
import { checkCandidate } from '../loop/check-candidate.js';
import { propose, proposerErrorFindings } from '../loop/propose.js';
import { checkPlan, sandboxOf } from '../loop/run-setup.js';
import { defineMission, type Mission } from '../mission/mission.js';
import { PROPOSER_PROTOCOL, type Proposal, type ProposalRequest } from '../proposers/proposer.js';
import { checksAnswer, runAnswer, statusAnswer, type ChecksAnswer, type RunAnswer, type Running, type StatusAnswer } from './answers.js';
import { agentText } from './agent-text.js';
import { takeBaseline, type SessionBaseline } from './session-baseline.js';
import { SessionRun } from './session-run.js';
import { workingCopyChanges } from './working-copy.js';

export interface McpSessionOptions {
  /** The mission; its workspace is where the agent works. */
  readonly mission: Mission;
  readonly ledger: Ledger;
  /** Signs the seals of the session's runs. */
  readonly signer?: Signer;
  /** Who the agent is (the MCP client's name): the run's proposer is `mcp:<agent>`, part of its plan. @default 'agent' */
  readonly agent?: string;
  /** Where the baseline and the runs' copies go. @default process.env.REDLINE_SCRATCH ?? os.tmpdir() */
  readonly scratchDir?: string;
  /** The workspace as the session found it (see {@link takeBaseline}). @default taken when the session opens */
  readonly baseline?: SessionBaseline;
  /** Start the run even though the same plan thrashed on the mission before (recorded). @default false */
  readonly forceSamePlan?: boolean;
  /** Injectable clock, for the elapsed times `status` reports. */
  readonly _internal?: { readonly now?: () => number };
}

type Call = 'redline_checks' | 'redline_submit';

/**
 * What `redline mcp` serves: an agent working in the mission's workspace, its red lines as tools. The
 * baseline is the workspace as it was when the session opened, frozen into a copy; the agent's working copy
 * is the live workspace, and its difference from the baseline is what `checks` checks and `submit` proposes.
 * The session's run starts when the session opens — so its baseline checks run while the agent works, not
 * on its first submit — and is `runMission` with a {@link SessionRun}'s proposer, its snapshot read from the
 * frozen copy: its guards, records, seal and acceptance are exactly the loop's, and it records the mission's
 * own workspace, so `redline admit` works on it as on any run. `checks` and `submit` are served one at a
 * time; `status` answers at once.
 */
export class McpSession {
  readonly #options: McpSessionOptions;
  /** The live workspace's snapshot when the session opened (with the check copy `checks` uses), and its frozen copy. */
  readonly #baseline: SessionBaseline;
  /** The mission as each run gets it: without the file's proposer (the agent is the proposer). */
  readonly #mission: Mission;
  readonly #checks: readonly Check[];
  readonly #now: () => number;
  /** Fires when the session closes: a `checks` call still running stops. */
  readonly #closing = new AbortController();
  #current: SessionRun;
  #queue: Promise<unknown> = Promise.resolve();
  /** The call being served now, and since when. */
  #busy: { readonly call: Call; readonly since: number } | undefined;

  private constructor(
    options: McpSessionOptions,
    { baseline, mission, checks }: { baseline: SessionBaseline; mission: Mission; checks: readonly Check[] },
  ) {
    this.#options = options;
    this.#baseline = baseline;
    this.#mission = mission;
    this.#checks = checks;
    this.#now = options._internal?.now ?? Date.now;
    this.#current = this.#start();
  }

  /**
   * Opens the session on `baseline` (taken now when not given) and starts the run. The session owns the
   * baseline from then on: {@link close} removes it.
   * @throws {TypeError} for a mission without a workspace.
   * @throws {MissionError} when the workspace cannot be read whole.
   */
  static async open(options: McpSessionOptions): Promise<McpSession> {
    const { mission, scratchDir } = options;
    const baseline = options.baseline ?? (await takeBaseline({ mission, scratchDir }));
    try {
      // The run's proposer is the agent, not the mission's: recovery, which cannot rebuild it, seals such a run crashed.
      const { baseDir, workspaceDir: _resolved, proposer: _proposer, ...spec } = mission;
      const own = defineMission(spec, { baseDir, source: mission.id });
      const checks = checkPlan(own, await buildChecks(own), []).filter((check) => check.shadow !== true);
      return new McpSession(options, { baseline, mission: own, checks });
    } catch (error) {
      await baseline.remove();
      throw error;
    }
  }

  #serially<T>(call: Call, work: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(async () => {
      this.#busy = { call, since: this.#now() };
      try {
        return await work();
      } finally {
        this.#busy = undefined;
      }
    });
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** The working copy's changes as a proposal on top of `latest`: a file changed before and reverted since goes back to the baseline. */
  async #proposal(latest: Readonly<Record<string, string | null>>): Promise<Proposal> {
    const changes = await workingCopyChanges(this.#baseline.workspace);
    const files = new Map(Object.entries(changes));
    for (const file of Object.keys(latest)) if (!files.has(file)) files.set(file, this.#baseline.workspace.snapshot.text(file));
    return { files: Object.fromEntries(files) };
  }

  /** Runs the mission's checks on the working copy, in the baseline's isolated check copy. Nothing is recorded. */
  checks(callerSignal?: AbortSignal): Promise<ChecksAnswer> {
    const signal = callerSignal === undefined ? this.#closing.signal : AbortSignal.any([callerSignal, this.#closing.signal]);
    return this.#serially('redline_checks', async () => {
      const request: ProposalRequest = {
        protocol: PROPOSER_PROTOCOL,
        mission: this.#mission,
        attempt: 0,
        state: { candidate: null, findings: [], budgetsLeft: { attempts: 0 }, completedChecks: [], recentSignatures: [] },
      };
      // The loop's own proposal step: the same path rules, the same errors, the same candidate.
      const proposed = await propose({
        proposer: { name: 'working-copy', capabilities: { reportsTokens: false, reportsCost: false }, propose: () => this.#proposal({}) },
        request,
        options: { signal },
        latest: EMPTY_CANDIDATE,
        baseline: new Baseline((file) => this.#baseline.workspace.snapshot.text(file)),
        pathProblems: (files) => this.#baseline.workspace.candidateProblems(files),
      });
      if ('error' in proposed) return checksAnswer(this.#checks, EMPTY_CANDIDATE, proposerErrorFindings(proposed.error, this.#checks));
      // A working copy that changes nothing is checked as the baseline: the agent asked what the checks say of it.
      const candidate = 'candidate' in proposed ? proposed.candidate : EMPTY_CANDIDATE;
      const sandbox = sandboxOf(this.#mission)?.checks;
      const { findings } = await checkCandidate({
        checks: this.#checks,
        candidate,
        context: { goal: this.#mission.goal, attempt: 0, signal, ...(sandbox === undefined ? {} : { sandbox }) },
        files: this.#baseline.workspace,
      });
      return checksAnswer(this.#checks, candidate, findings);
    });
  }

  /** The session's run: the one named (which must be it), else the current one. */
  #run(runId: string | undefined): SessionRun {
    if (runId === undefined || this.#current.runId === runId) return this.#current;
    throw new TypeError(`Expected the id of this session's run, got ${JSON.stringify(runId)}`);
  }

  /**
   * Proposes the working copy as the next attempt of the session's run, and returns what the loop made of
   * it: `continue` with the findings and the budgets left, or `stop` with the sealed outcome. A session has
   * one run: once sealed, every submit answers its seal, so its budgets bind (a run refused before its first
   * record, e.g. by a budget it cannot measure, is tried again; a run stopped because the frozen baseline
   * was changed is not). A submit made while the run checks its baseline waits for it.
   * @throws {TypeError} for a run id that is not the session's run.
   */
  submit({ runId }: { runId?: string | undefined } = {}): Promise<RunAnswer> {
    return this.#serially('redline_submit', async () => {
      const named = this.#run(runId);
      if (named.end !== undefined && ('result' in named.end || named.end.error instanceof BaselineChangedError))
        return runAnswer(this.#mission, named, named.end);
      const run = named.end === undefined ? named : (this.#current = this.#start());
      const before = await run.next();
      if (!('request' in before)) return runAnswer(this.#mission, run, before);
      const after = await run.propose(this.#proposal(before.request.state.candidate?.files ?? {}));
      return runAnswer(this.#mission, run, 'request' in after ? after.request : after);
    });
  }

  #start(): SessionRun {
    const { ledger, signer, agent, scratchDir, forceSamePlan } = this.#options;
    // The client names itself: untrusted text, kept short and spelled out before it is recorded.
    const name = agentText(agent ?? '', 100) || 'agent';
    return new SessionRun({
      mission: this.#mission,
      ledger,
      signer,
      agent: name,
      scratchDir,
      forceSamePlan,
      baselineHash: this.#baseline.workspace.snapshot.hash,
      snapshotFrom: this.#baseline.frozen,
      now: this.#now,
    });
  }

  /** The checks running now: the run's start (its baseline), or the call being served, and for how long. */
  #running(): Running[] {
    const now = this.#now();
    const running: Running[] = [];
    const run = this.#current;
    if (run.starting) running.push({ checks: 'baseline', elapsedMs: now - run.startedAt });
    // A submit made while the baseline is checked waits for it: its own checks have not started.
    if (this.#busy !== undefined && !(run.starting && this.#busy.call === 'redline_submit'))
      running.push({ checks: this.#busy.call, elapsedMs: now - this.#busy.since });
    return running;
  }

  /**
   * Where the run named (else the session's) stands — attempts, budgets left, latest findings, outcome when
   * sealed — and which checks run now, answered at once, also while a submit or a check runs.
   */
  async status({ runId }: { runId?: string | undefined } = {}): Promise<StatusAnswer> {
    return statusAnswer(this.#mission, this.#run(runId), this.#running());
  }

  /**
   * Stops the session's open run (sealed `failed_with_evidence` / `aborted`, after its last submitted
   * attempt), stops a `checks` call still running, and removes the baseline's directory.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    if (this.#current.end === undefined) await this.#current.stop();
    await this.#queue;
    await this.#baseline.remove();
  }
}
