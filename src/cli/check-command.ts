import path from 'node:path';
import { checkReachability, type ReachabilityReport } from '../loop/check-reachability.js';
import { loadMission } from '../mission/load.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

export interface CheckCommandOptions {
  /** The reference candidate: a full tree whose difference from the mission's workspace is the candidate. */
  readonly reference: string;
  readonly json?: boolean;
}

const SAID: Record<ReachabilityReport['status'], string> = {
  reachable: 'reachable: every required check passes on the reference, and the baseline fails with specific reasons',
  unreachable: 'unreachable: the reference does not pass every required check',
  too_broad: 'too broad: the required demand checks already pass on the unchanged baseline',
  weak_feedback: 'weak feedback: a required check fails on the baseline without a specific reason code',
  environment: 'environment: a required check cannot run on the baseline',
};

/** `redline check MISSION --reference DIR`: runs the mission's checks on its baseline and on a reference candidate. */
export async function checkCommand(file: string, options: CheckCommandOptions, { print }: Output): Promise<number> {
  const mission = await loadMission(file);
  const report = await checkReachability({ mission, reference: path.resolve(options.reference) });
  if (options.json === true) print(jsonLine(report));
  else
    print(
      [
        `mission ${clean(report.mission)}: ${SAID[report.status]}`,
        `reference     ${report.candidate.footprint.length} changed path(s)${report.candidate.footprint.length === 0 ? '' : `: ${report.candidate.footprint.slice(0, 5).map(clean).join(', ')}${report.candidate.footprint.length > 5 ? ', …' : ''}`}`,
        ...report.problems.map((problem) => `  - ${clean(problem)}`),
      ].join('\n'),
    );
  return report.status === 'reachable' ? 0 : 1;
}
