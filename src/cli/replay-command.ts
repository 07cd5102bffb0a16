import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { MissionError } from '../errors/mission-error.js';
import { policyFileSchema, replayPolicies, type ReplayPolicy } from '../ledger/replay.js';
import { toMissionIssues } from '../mission/issues.js';
import { withLedger } from './ledger-command.js';
import { table } from './format.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

async function loadPolicies(file: string): Promise<ReplayPolicy[]> {
  let data: unknown;
  try {
    const text = await readFile(file, 'utf8');
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new MissionError({
      source: file,
      issues: [
        {
          path: '(root)',
          expected: 'a readable JSON or YAML policy file',
          got: 'an error',
          message: (error as Error).message.split('\n')[0] ?? '',
        },
      ],
    });
  }
  const parsed = policyFileSchema.safeParse(data, { reportInput: true });
  if (!parsed.success) throw new MissionError({ source: file, issues: toMissionIssues(parsed.error.issues) });
  return 'policies' in parsed.data ? parsed.data.policies : [parsed.data];
}

function parseSince(since: string | undefined): number | undefined {
  if (since === undefined) return undefined;
  const at = Date.parse(since);
  if (Number.isNaN(at)) throw new TypeError(`Expected --since to be a date such as 2026-11-23, got ${JSON.stringify(since)}`);
  return at;
}

const pct = (part: number, whole: number): string => (whole === 0 ? '—' : `${((100 * part) / whole).toFixed(1)}%`);

/** `redline replay`: what each stop policy would have done on the recorded runs. */
export async function replayCommand(
  { policy, taskType, since, json = false, ledger }: { policy: string; taskType?: string; since?: string; json?: boolean; ledger?: string },
  { print }: Output,
): Promise<number> {
  const policies = await loadPolicies(policy);
  const after = parseSince(since);
  return withLedger(ledger, async (open, name) => {
    const results = await replayPolicies(open, policies, {
      ...(taskType === undefined ? {} : { taskType }),
      ...(after === undefined ? {} : { since: after }),
    });
    if (json) {
      for (const result of results) print(jsonLine(result));
      return 0;
    }
    const runs = results[0]?.runs ?? 0;
    print(
      clean(
        `${runs} sealed run(s) in ${name}${taskType === undefined ? '' : ` of task type ${taskType}`}${since === undefined ? '' : ` since ${since}`}`,
      ),
    );
    print(
      table(
        ['policy', 'attempts', 'recorded', 'earlier', 'same', 'later', 'reach', 'recorded reach'],
        results.map((result) => [
          clean(result.policy),
          String(result.attempts),
          String(result.recordedAttempts),
          String(result.stoppedEarlier),
          String(result.stoppedSame),
          String(result.stoppedLater),
          `${result.reached} (${pct(result.reached, result.runs - result.stoppedLater)})`,
          `${result.recordedReached} (${pct(result.recordedReached, result.runs)})`,
        ]),
      ),
    );
    print(
      'attempts: used where the policy stopped within the recorded evidence; later: it would have gone on past the recorded end (reach unknown).',
    );
    return 0;
  });
}
