import { replayPolicies } from '../analysis/replay.js';
import { parseSince } from './arguments.js';
import { withLedger } from './ledger-command.js';
import { table } from './format.js';
import { loadPolicies } from './policy-file.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

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
    // With shadow verdicts in the runs, true reach (what the held-out checks said) stands next to the observed.
    const shadowed = results.some((result) => result.shadow !== undefined);
    print(
      table(
        [
          'policy',
          'attempts',
          'recorded',
          'earlier',
          'same',
          'later',
          'reach',
          'recorded reach',
          ...(shadowed ? ['true reach', 'recorded true reach'] : []),
        ],
        results.map((result) => [
          clean(result.policy),
          String(result.attempts),
          String(result.recordedAttempts),
          String(result.stoppedEarlier),
          String(result.stoppedSame),
          String(result.stoppedLater),
          `${result.reached} (${pct(result.reached, result.runs - result.stoppedLater)})`,
          `${result.recordedReached} (${pct(result.recordedReached, result.runs)})`,
          ...(result.shadow === undefined
            ? []
            : [
                `${result.shadow.trueReached}/${result.shadow.judged} (${pct(result.shadow.trueReached, result.shadow.judged)})`,
                `${result.shadow.recordedTrueReached}/${result.shadow.recordedJudged} (${pct(result.shadow.recordedTrueReached, result.shadow.recordedJudged)})`,
              ]),
        ]),
      ),
    );
    print(
      'attempts: used where the policy stopped within the recorded evidence; later: it would have gone on past the recorded end (reach unknown).',
    );
    if (shadowed)
      print(
        'true reach: of the runs where the policy stops on the candidate the shadow checks judged at the seal (pass or fail), those that passed.',
      );
    return 0;
  });
}
