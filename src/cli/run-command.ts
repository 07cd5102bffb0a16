import path from 'node:path';
import type { Finding } from '../checks/finding.js';
import type { LedgerRecord } from '../ledger/ledger.js';
import { MemoryLedger } from '../ledger/memory/memory-ledger.js';
import { loadMission } from '../mission/load.js';
import type { Mission } from '../mission/mission.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { runMission, type RunResult } from '../loop/run-mission.js';
import { writeEvidence } from './evidence.js';
import { describeRun, runSummary } from './format.js';

export interface RunCommandOptions {
  readonly json?: boolean;
  readonly proposer?: string;
  readonly model?: string;
  readonly baseUrl?: string;
  readonly apiKeyEnv?: string;
  readonly approve?: readonly string[];
  readonly evidenceDir?: string;
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

/** Runs one mission file; prints a summary; returns the process exit code. */
export async function runFile(file: string, options: RunCommandOptions, print: (line: string) => void, progress: (line: string) => void): Promise<{ code: number; result: RunResult }> {
  const mission = await loadMission(file);
  const proposer = await proposerFromFlags(mission, options);
  const ledger = new MemoryLedger();
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
  const evidence = await writeEvidence(options.evidenceDir ?? path.join(mission.baseDir, '.redline'), result.runId, await ledger.records(result.runId));
  print(options.json === true ? JSON.stringify(runSummary(result)) : describeRun(result, path.relative(process.cwd(), evidence)));
  return { code: exitCodeOf(result), result };
}
