import { cp, mkdtemp, rm, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Check } from '../../core/check.js';
import type { Candidate } from '../../core/candidate.js';
import type { Mission } from '../../mission/mission.js';

/** What the tests say of one candidate: `pass`, `fail`, or `error` when they could not tell. */
export type Truth = 'pass' | 'fail' | 'error';

/**
 * The truth about candidates, decided by the mission's required checks outside the loop: each candidate is
 * written over a fresh copy of the workspace and checked once (candidates with the same hash share one
 * verdict). This is how condition B gets a verdict for every attempt although its checks never run in the loop.
 */
export class TruthOracle {
  readonly #checks: readonly Check[];
  readonly #mission: Mission;
  readonly #scratch: string;
  readonly #known = new Map<string, Promise<Truth>>();

  constructor({ checks, mission, scratch }: { checks: readonly Check[]; mission: Mission; scratch: string }) {
    this.#checks = checks.filter((check) => check.required);
    this.#mission = mission;
    this.#scratch = scratch;
  }

  /** The verdict on `candidate` (attempt number given to the checks as context). */
  verdict(candidate: Candidate, attempt: number, signal: AbortSignal): Promise<Truth> {
    let known = this.#known.get(candidate.hash);
    if (known === undefined) {
      known = this.#check(candidate, attempt, signal);
      this.#known.set(candidate.hash, known);
    }
    return known;
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
