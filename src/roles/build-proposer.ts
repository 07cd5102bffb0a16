import path from 'node:path';
import { MissionError } from '../errors/mission-error.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Mission } from '../mission/mission.js';
import { agentProposer } from '../proposers/agent-proposer.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { loadReplay, replayProposer } from '../proposers/replay-proposer.js';

/**
 * Builds the proposer a mission file names; a model proposer's calls wait for `rateLimiter`'s turn.
 * @throws {MissionError} when the mission names none or its replay file cannot be read.
 */
export async function buildProposer(mission: Mission, { rateLimiter }: { rateLimiter?: RateLimiter } = {}): Promise<Proposer> {
  const spec = mission.proposer;
  if (spec === undefined) {
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'proposer',
          expected: 'a proposer (in the mission, or --proposer / --model on the command line)',
          got: 'nothing (missing)',
          message: 'no proposer: set "proposer" in the mission or pass --proposer "<command>"',
        },
      ],
    });
  }
  switch (spec.kind) {
    case 'command':
      return commandProposer({
        command: spec.command,
        cwd: mission.workspaceDir ?? mission.baseDir,
        outputCap: spec.outputCap,
        reportsTokens: spec.reportsTokens,
        reportsCost: spec.reportsCost,
        ...(spec.timeout === undefined ? {} : { timeoutMs: spec.timeout }),
      });
    case 'agent':
      return agentProposer({
        command: spec.command,
        outputCap: spec.outputCap,
        maxChangeBytes: spec.maxChangeBytes,
        reportsTokens: spec.reportsTokens,
        reportsCost: spec.reportsCost,
        ...(spec.timeout === undefined ? {} : { timeoutMs: spec.timeout }),
      });
    case 'replay': {
      const file = path.resolve(mission.baseDir, spec.file);
      try {
        return replayProposer(await loadReplay(file), { name: `replay:${spec.file}` });
      } catch (error) {
        throw new MissionError({
          source: mission.id,
          issues: [
            {
              path: 'proposer.file',
              expected: 'a JSON file holding an array of proposals',
              got: spec.file,
              message: `cannot load ${file}: ${(error as Error).message}`,
            },
          ],
        });
      }
    }
    case 'model': {
      const { modelProposer } = await import('../ai-sdk/model-proposer.js');
      return modelProposer({ ...spec, apiKey: process.env[spec.apiKeyEnv], rateLimiter });
    }
  }
}
