import type { Finding } from '../checks/finding.js';
import type { Ledger, LedgerRecord } from '../ledger/ledger.js';
import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { recoverRuns } from '../loop/resume.js';
import { loadMission } from '../mission/load.js';
import type { Mission } from '../mission/mission.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { runMission, type RunResult } from '../loop/run-mission.js';
import { describeRun, runSummary } from './format.js';

export interface RunCommandOptions {
  readonly json?: boolean;
  readonly proposer?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly approve?: readonly string[];
  /** Ledger location: a SQLite file or a postgres:// URL. */
  readonly ledger?: string;
}

export interface Output {
  /** Results (stdout). */
  readonly print: (line: string) => void;
  /** Progress and notes (stderr). */
  readonly progress: (line: string) => void;
}

/** Exit code of a finished run: 0 complete/complete_noop, 1 blocked/failed. */
export function exitCodeOf(result: RunResult): number {
  return result.outcome === 'complete' || result.outcome === 'complete_noop' ? 0 : 1;
}

async function proposerFromFlags(mission: Mission, options: RunCommandOptions): Promise<Proposer | undefined> {
  if (options.proposer !== undefined) return commandProposer({ command: options.proposer, cwd: mission.workspaceDir ?? mission.baseDir });
  if (options.model === undefined) return undefined;
  if (options.baseUrl === undefined) throw new TypeError('Expected --base-url with --model, got none');
  const { modelProposer } = await import('../ai-sdk/model-proposer.js');
  const apiKeyEnv = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  return modelProposer({ baseURL: options.baseUrl, model: options.model, apiKey: process.env[apiKeyEnv] });
}

function attemptLine(record: LedgerRecord): string | undefined {
  if (record.type !== 'attempt') return undefined;
  const findings = record.data.findings as readonly Finding[];
  const bad = findings.filter((item) => item.status === 'fail' || item.status === 'error');
  const score = findings.find((item) => item.score !== undefined)?.score;
  const what = bad.length === 0 ? 'all checks passed' : `${bad.length} failing: ${bad.slice(0, 2).map((item) => item.reasonCodes[0] ?? item.check).join(', ')}${bad.length > 2 ? ', …' : ''}`;
  return `  attempt ${record.data.attempt}: ${what}${score === undefined ? '' : ` (score ${score.toFixed(2)})`}`;
}

/** Recovers the ledger's crashed runs before new work, and says what it did. */
export async function recoverBeforeRun(ledger: Ledger, { progress }: Output): Promise<void> {
  for (const recovery of await recoverRuns({ ledger })) {
    if (recovery.action !== 'skipped_live') progress(`recovered run ${recovery.runId}: ${recovery.action.replace('_', ' ')} (${recovery.detail})`);
  }
}

/** Runs one mission file against an open ledger and prints its summary. */
export async function runMissionFile(file: string, ledger: Ledger, ledgerName: string, options: RunCommandOptions, { print, progress }: Output): Promise<RunResult> {
  const mission = await loadMission(file);
  const proposer = await proposerFromFlags(mission, options);
  if (options.json !== true) progress(`mission ${mission.id}: ${mission.goal.split('\n')[0]}`);
  const result = await runMission({
    mission,
    ledger,
    ...(proposer === undefined ? {} : { proposer }),
    ...(options.approve === undefined ? {} : { approvals: options.approve }),
    onRecord: (record) => {
      const line = options.json === true ? undefined : attemptLine(record);
      if (line !== undefined) progress(line);
    },
  });
  print(options.json === true ? JSON.stringify(runSummary(result)) : describeRun(result, `redline ledger show ${result.runId} --ledger ${ledgerName}`));
  return result;
}

/** `redline run`: opens the ledger (default `.redline/redline.db` next to the mission), recovers, runs. */
export async function runCommand(file: string, options: RunCommandOptions, output: Output): Promise<number> {
  const mission = await loadMission(file);
  const location = ledgerLocation(options.ledger, mission.baseDir);
  const ledger = await openLedger(location);
  try {
    await recoverBeforeRun(ledger, output);
    return exitCodeOf(await runMissionFile(file, ledger, displayLocation(location), options, output));
  } finally {
    await ledger.close();
  }
}
