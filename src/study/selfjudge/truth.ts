import { cp, mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../../core/check.js';
import type { Candidate } from '../../core/candidate.js';
import type { Finding } from '../../core/finding.js';
import type { Mission } from '../../mission/mission.js';

/** What the tests say of one candidate: `pass`, `fail`, or `error` when they could not tell. */
export type Truth = 'pass' | 'fail' | 'error';

/**
 * The truth about candidates, decided by the mission's required checks outside the loop: each candidate is
 * written over a fresh copy of the workspace and checked once (candidates with the same hash share one
 * verdict). This is how condition B gets a verdict for every attempt although its checks never run in the loop.
 * When the loop ran the very same checks (`ranInLoop`), a candidate's recorded findings are its verdict and
 * nothing runs again.
 */
export class TruthOracle {
  readonly #checks: readonly Check[];
  readonly #mission: Mission;
  readonly #scratch: string;
  readonly #reuse: boolean;
  readonly #known = new Map<string, Promise<Truth>>();

  /**
   * @param ranInLoop - `mission` is the run's own mission, so the loop checked each candidate with these checks. The
   * loop's findings are then reused, except under a sandbox (the loop's checks ran inside it, this oracle's do not)
   * and for semantic checks (a model's score of the same candidate can differ from one call to the next).
   * @default false
   */
  constructor({
    checks,
    mission,
    scratch,
    ranInLoop = false,
  }: {
    checks: readonly Check[];
    mission: Mission;
    scratch: string;
    ranInLoop?: boolean;
  }) {
    this.#checks = checks.filter((check) => check.required);
    this.#mission = mission;
    this.#scratch = scratch;
    this.#reuse = ranInLoop && mission.sandbox === 'none' && this.#checks.every((check) => check.tier !== 'semantic');
  }

  /**
   * The verdict on `candidate` (attempt number given to the checks as context). `recorded` is what the loop's
   * checks found on this very candidate at that attempt; it stands for running them when it holds a pass or fail
   * of every check and nothing else of theirs (a skipped or errored check is run here).
   */
  verdict(candidate: Candidate, attempt: number, signal: AbortSignal, recorded?: readonly Finding[]): Promise<Truth> {
    let known = this.#known.get(candidate.hash);
    if (known === undefined) {
      const reused = this.#reuse && recorded !== undefined ? this.#truthOf(recorded) : undefined;
      known = reused === undefined ? this.#check(candidate, attempt, signal) : Promise.resolve(reused);
      this.#known.set(candidate.hash, known);
    }
    return known;
  }

  /** The verdict `findings` give, when they decide every check: the same rule as {@link TruthOracle.#check}'s. */
  #truthOf(findings: readonly Finding[]): Truth | undefined {
    let failed = false;
    for (const check of this.#checks) {
      const own = findings.filter((item) => item.check === check.name);
      if (own.length === 0 || own.some((item) => item.status !== 'pass' && item.status !== 'fail')) return undefined;
      failed ||= own.some((item) => item.status === 'fail');
    }
    return failed ? 'fail' : 'pass';
  }

  async #check(candidate: Candidate, attempt: number, signal: AbortSignal): Promise<Truth> {
    await mkdir(this.#scratch, { recursive: true });
    const dir = await mkdtemp(path.join(this.#scratch, 'truth-'));
    try {
      const workspace = this.#mission.workspaceDir;
      if (workspace !== undefined)
        await cp(workspace, dir, { recursive: true, filter: (source) => !['.git', '.redline'].includes(path.basename(source)) });
      for (const [file, content] of Object.entries(candidate.files)) {
        const target = path.join(dir, file);
        if (content === null) await rm(target, { force: true });
        else {
          await mkdir(path.dirname(target), { recursive: true });
          await writeFile(target, content);
        }
      }
      const findings = [];
      for (const check of this.#checks) {
        findings.push(...(await check.run({ dir, candidate, goal: this.#mission.goal, attempt, signal })));
      }
      if (findings.some((item) => item.status === 'fail')) return 'fail';
      return findings.every((item) => item.status === 'pass') ? 'pass' : 'error';
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
