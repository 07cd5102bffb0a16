import { randomUUID } from 'node:crypto';
import { buildChecks } from '../roles/build-checks.js';
import { BaselineChangedError } from '../errors/baseline-changed-error.js';
import { Baseline, EMPTY_CANDIDATE } from '../core/candidate.js';
import type { Check } from '../core/check.js';
import type { Ledger } from '../ledger/ledger.js';
import type { Signer } from '../ledger/seal-signature.js';
import { checkCandidate } from '../loop/check-candidate.js';
import { propose, proposerErrorFindings } from '../loop/propose.js';
import { checkPlan, sandboxOf, startWorkspace } from '../loop/run-setup.js';
import { defineMission, type Mission } from '../mission/mission.js';
import { PROPOSER_PROTOCOL, type Proposal, type ProposalRequest } from '../proposers/proposer.js';
import type { RunWorkspace } from '../workspace/run-workspace.js';
import { checksAnswer, runAnswer, statusAnswer, type ChecksAnswer, type RunAnswer, type StatusAnswer } from './answers.js';
import { agentText } from './agent-text.js';
import { SessionRun } from './session-run.js';
import { workingCopyChanges } from './working-copy.js';

export interface McpSessionOptions {
  /** The mission; its workspace is where the agent works. */
  readonly mission: Mission;
  readonly ledger: Ledger;
  /** Signs the seals of the session's runs. */
  readonly signer?: Signer;
  /** Who the agent is (the MCP client's name), asked when a run starts: part of the run's plan. @default 'agent' */
  readonly agent?: () => string | undefined;
  /** Where the baseline and the runs' copies go. @default process.env.REDLINE_SCRATCH ?? os.tmpdir() */
  readonly scratchDir?: string;
}

/**
 * What `redline mcp` serves: an agent working in the mission's workspace, its red lines as tools. The
 * baseline is the workspace as it was when the session opened, frozen into a copy; the agent's working copy
 * is the live workspace, and its difference from the baseline is what `checks` checks and `submit` proposes.
 * The session's one run is `runMission` on the frozen baseline with a {@link SessionRun}'s proposer, so its
 * guards, records, seal and acceptance are exactly the loop's. Calls are served one at a time.
 */
export class McpSession {
  readonly #options: McpSessionOptions;
  /** The live workspace's snapshot when the session opened: the baseline, and the check copy `checks` uses. */
  readonly #baseline: RunWorkspace;
  /** The mission as each run gets it: its workspace is the frozen baseline. */
  readonly #mission: Mission;
  readonly #checks: readonly Check[];
  #current: SessionRun | undefined;
  #queue: Promise<unknown> = Promise.resolve();

  private constructor(options: McpSessionOptions, baseline: RunWorkspace, mission: Mission, checks: readonly Check[]) {
    this.#options = options;
    this.#baseline = baseline;
    this.#mission = mission;
    this.#checks = checks;
  }

  /**
   * Takes the baseline: the mission's workspace now, before the agent changes it.
   * @throws {TypeError} for a mission without a workspace.
   * @throws {MissionError} when the workspace cannot be read whole.
   */
  static async open(options: McpSessionOptions): Promise<McpSession> {
    const { mission, scratchDir } = options;
    if (mission.workspaceDir === undefined)
      throw new TypeError(`Expected a mission with a workspace, got mission ${mission.id} without one`);
    const baseline = await startWorkspace(mission, {
      runId: `mcp-${randomUUID()}`,
      workspace: mission.workspaceDir,
      ignore: mission.ignore,
      ...(scratchDir === undefined ? {} : { scratchDir }),
    });
    try {
      // Runs snapshot a tree nothing writes to: the baseline's own copy, never reset or handed to a check.
      // Their proposer is the agent, not the mission's: recovery, which cannot rebuild it, seals such a run crashed.
      const { baseDir, workspaceDir: _live, proposer: _proposer, ...spec } = mission;
      const frozen = defineMission({ ...spec, workspace: await baseline.agentCopy({}) }, { baseDir, source: mission.id });
      const checks = checkPlan(frozen, await buildChecks(frozen), []).filter((check) => check.shadow !== true);
      return new McpSession(options, baseline, frozen, checks);
    } catch (error) {
      await baseline.dispose();
      throw error;
    }
  }

  #serially<T>(call: () => Promise<T>): Promise<T> {
    const result = this.#queue.then(call);
    this.#queue = result.catch(() => undefined);
    return result;
  }

  /** The working copy's changes as a proposal on top of `latest`: a file changed before and reverted since goes back to the baseline. */
  async #proposal(latest: Readonly<Record<string, string | null>>): Promise<Proposal> {
    const changes = await workingCopyChanges(this.#baseline);
    const files = new Map(Object.entries(changes));
    for (const file of Object.keys(latest)) if (!files.has(file)) files.set(file, this.#baseline.snapshot.text(file));
    return { files: Object.fromEntries(files) };
  }

  /** Runs the mission's checks on the working copy, in the baseline's isolated check copy. Nothing is recorded. */
  checks(signal: AbortSignal = new AbortController().signal): Promise<ChecksAnswer> {
    return this.#serially(async () => {
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
        baseline: new Baseline((file) => this.#baseline.snapshot.text(file)),
        pathProblems: (files) => this.#baseline.candidateProblems(files),
      });
      if ('error' in proposed) return checksAnswer(this.#checks, EMPTY_CANDIDATE, proposerErrorFindings(proposed.error, this.#checks));
      // A working copy that changes nothing is checked as the baseline: the agent asked what the checks say of it.
      const candidate = 'candidate' in proposed ? proposed.candidate : EMPTY_CANDIDATE;
      const sandbox = sandboxOf(this.#mission)?.checks;
      const { findings } = await checkCandidate({
        checks: this.#checks,
        candidate,
        context: { goal: this.#mission.goal, attempt: 0, signal, ...(sandbox === undefined ? {} : { sandbox }) },
        files: this.#baseline,
      });
      return checksAnswer(this.#checks, candidate, findings);
    });
  }

  /** The session's run: the one named (which must be it), else the current one. */
  #run(runId: string | undefined): SessionRun | undefined {
    if (runId === undefined || this.#current?.runId === runId) return this.#current;
    throw new TypeError(`Expected the id of this session's run, got ${JSON.stringify(runId)}`);
  }

  /**
   * Proposes the working copy as the next attempt of the session's run (the first submit starts it), and
   * returns what the loop made of it: `continue` with the findings and the budgets left, or `stop` with the
   * sealed outcome. A session has one run: once sealed, every submit answers its seal, so its budgets bind
   * (a run refused before its first record, e.g. by a budget it cannot measure, is tried again; a run
   * stopped because the frozen baseline was changed is not).
   * @throws {TypeError} for a run id that is not the session's run.
   */
  submit({ runId }: { runId?: string | undefined } = {}): Promise<RunAnswer> {
    return this.#serially(async () => {
      const named = this.#run(runId);
      if (named?.end !== undefined && ('result' in named.end || named.end.error instanceof BaselineChangedError))
        return runAnswer(this.#mission, named, named.end);
      const run = named !== undefined && named.end === undefined ? named : this.#start();
      const before = await run.next();
      if (!('request' in before)) return runAnswer(this.#mission, run, before);
      const after = await run.propose(this.#proposal(before.request.state.candidate?.files ?? {}));
      return runAnswer(this.#mission, run, 'request' in after ? after.request : after);
    });
  }

  #start(): SessionRun {
    const { ledger, signer, agent, scratchDir } = this.#options;
    // The client names itself: untrusted text, kept short and spelled out before it is recorded.
    const name = agentText(agent?.() ?? '', 100) || 'agent';
    const run = new SessionRun({
      mission: this.#mission,
      ledger,
      signer,
      agent: name,
      scratchDir,
      baselineHash: this.#baseline.snapshot.hash,
    });
    this.#current = run;
    return run;
  }

  /** Where the run named (else the session's latest) stands: attempts, budgets left, latest findings, outcome when sealed. */
  status({ runId }: { runId?: string | undefined } = {}): Promise<StatusAnswer> {
    return this.#serially(async () => statusAnswer(this.#mission, this.#run(runId)));
  }

  /** Stops the session's open run (sealed `aborted`) and removes the baseline. */
  async close(): Promise<void> {
    const open = this.#current;
    if (open !== undefined && open.end === undefined) await open.stop();
    await this.#queue;
    await this.#baseline.dispose();
  }
}
