import { MissionError } from '../errors/mission-error.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Mission } from '../mission/mission.js';
import type { ReviewerQueue } from '../review/reviewer-queue.js';
import { commandJudge } from '../judge/command-judge.js';
import { humanJudge, type HumanJudgeOptions } from '../judge/human-judge.js';
import type { Judge } from '../judge/judge.js';
import { routingJudge } from '../judge/routing-judge.js';

/** Human judge settings a mission gets with the `"human"` shorthand. */
const HUMAN_DEFAULTS = { timeout: 3_600_000, pollInterval: 5_000, onReject: 'retry' } as const;

/**
 * Builds the judge a mission file names: the routing table when it names none. A model judge's calls
 * wait for `rateLimiter`'s turn.
 * @throws {MissionError} when the mission names a `human` judge and no review queue is given (nothing is recorded yet).
 */
export async function buildJudge(
  mission: Mission,
  { queue, onRequest, rateLimiter }: { queue?: ReviewerQueue; onRequest?: HumanJudgeOptions['onRequest']; rateLimiter?: RateLimiter } = {},
): Promise<Judge> {
  const spec =
    typeof mission.judge === 'string'
      ? mission.judge === 'human'
        ? { kind: 'human' as const, ...HUMAN_DEFAULTS }
        : undefined
      : mission.judge;
  switch (spec?.kind) {
    case undefined:
    case 'routing-table':
      return routingJudge();
    case 'command':
      return commandJudge({
        command: spec.command,
        cwd: mission.workspaceDir ?? mission.baseDir,
        timeoutMs: spec.timeout,
        outputCap: spec.outputCap,
      });
    case 'model': {
      const { modelJudge } = await import('../ai-sdk/model-judge.js');
      return modelJudge({
        baseURL: spec.baseURL,
        model: spec.model,
        apiKey: process.env[spec.apiKeyEnv],
        rateLimiter,
        ...(spec.timeout === undefined ? {} : { timeoutMs: spec.timeout }),
      });
    }
    case 'human':
      if (queue === undefined) {
        throw new MissionError({
          source: mission.id,
          issues: [
            {
              path: 'judge',
              expected: "a review queue for the human judge (redline run opens the ledger's; the library takes handoff or judge)",
              got: 'no review queue',
              message: 'a human judge waits for a verdict from the review queue, and this run has none',
            },
          ],
        });
      }
      return humanJudge({
        queue,
        timeoutMs: spec.timeout,
        pollIntervalMs: spec.pollInterval,
        onReject: spec.onReject,
        ...(onRequest === undefined ? {} : { onRequest }),
      });
  }
}
