import path from 'node:path';
import { MissionError } from '../errors/mission-error.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { readPrices, type PriceTable } from '../metering/prices.js';
import type { Mission } from '../mission/mission.js';
import { agentProposer } from '../proposers/agent-proposer.js';
import type { AgentPreset } from '../proposers/agent-presets/agent-preset.js';
import { AGENT_PRESETS } from '../proposers/agent-presets/presets.js';
import { presetProposer } from '../proposers/preset-proposer.js';
import { commandProposer } from '../proposers/command-proposer.js';
import type { Proposer } from '../proposers/proposer.js';
import { loadReplay, replayProposer } from '../proposers/replay-proposer.js';

/** A metered agent's prices: the mission's table, or the file it names (relative to the mission file). */
async function missionPrices(mission: Mission, prices: PriceTable | string): Promise<PriceTable> {
  if (typeof prices !== 'string') return prices;
  try {
    return await readPrices(path.resolve(mission.baseDir, prices));
  } catch (error) {
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: 'proposer.meter.prices',
          expected: 'a prices file: model id → { input, output, cachedInput?, cacheWrite? } in USD per million tokens',
          got: prices,
          message: (error as Error).message,
        },
      ],
    });
  }
}

/**
 * Builds the proposer a mission file names; a model proposer's calls, and a metered agent's, wait for
 * `rateLimiter`'s turn.
 * @throws {MissionError} when the mission names none, or its replay or prices file cannot be read.
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
    case 'agent': {
      const { meter } = spec;
      const metered =
        meter === undefined
          ? {}
          : {
              meter: {
                upstream: meter.upstream,
                ...(meter.prices === undefined ? {} : { prices: await missionPrices(mission, meter.prices) }),
                ...(rateLimiter === undefined ? {} : { rateLimiter }),
              },
            };
      if (spec.preset !== undefined)
        return presetProposer({
          preset: AGENT_PRESETS[spec.preset] as AgentPreset,
          ...(spec.model === undefined ? {} : { model: spec.model }),
          ...(spec.baseUrl === undefined ? {} : { baseUrl: spec.baseUrl }),
          ...(spec.apiKeyEnv === undefined ? {} : { apiKeyEnv: spec.apiKeyEnv }),
          ...(spec.args === undefined ? {} : { args: spec.args }),
          ...(spec.timeout === undefined ? {} : { timeoutMs: spec.timeout }),
          ...metered,
        });
      return agentProposer({
        command: spec.command as string | readonly string[],
        outputCap: spec.outputCap,
        maxChangeBytes: spec.maxChangeBytes,
        reportsTokens: spec.reportsTokens,
        reportsCost: spec.reportsCost,
        ...(spec.timeout === undefined ? {} : { timeoutMs: spec.timeout }),
        ...metered,
      });
    }
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
