import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { MissionError } from '../errors/mission-error.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Mission } from '../mission/mission.js';
import type { CheckSpec } from '../mission/schema.js';
import type { Check } from '../core/check.js';
import { commandScore } from '../checks/command-score.js';
import { jsonSchemaCheck } from '../checks/json-schema-check.js';
import { minOfTwo } from '../checks/min-of-two.js';
import { programCheck } from '../checks/program-check.js';
import { scoreCheck, type ScoreFunction } from '../checks/score-check.js';

async function loadSchema(
  mission: Mission,
  spec: Extract<CheckSpec, { kind: 'json-schema' }>,
  index: number,
): Promise<Record<string, unknown>> {
  if (typeof spec.schema !== 'string') return spec.schema;
  const file = path.resolve(mission.baseDir, spec.schema);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new MissionError({
      source: mission.id,
      issues: [
        {
          path: `checks[${index}].schema`,
          expected: 'a readable JSON Schema file',
          got: spec.schema,
          message: `cannot load the schema ${file}: ${(error as Error).message}`,
        },
      ],
    });
  }
}

/** Where a score comes from: a judge program or a model (the score check itself, or one of its `minOf`). */
type ScoreSource = Pick<Extract<CheckSpec, { kind: 'score' }>, 'command' | 'model'>;

/**
 * Builds the checks a mission file declares, in order; a `shadow: true` spec gives a check marked `shadow`.
 * A model score's calls wait for `rateLimiter`'s turn.
 */
export async function buildChecks(mission: Mission, { rateLimiter }: { rateLimiter?: RateLimiter } = {}): Promise<Check[]> {
  const cwd = mission.workspaceDir ?? mission.baseDir;
  const checks = await Promise.all(
    mission.checks.map(async (spec, index): Promise<Check> => {
      const common = { name: spec.name, stage: spec.stage, required: spec.required };
      const process = { timeoutMs: spec.timeout, outputCap: spec.outputCap };
      switch (spec.kind) {
        case 'command':
        case 'test-runner':
        case 'expected-output':
          return programCheck(spec);
        case 'json-schema':
          return jsonSchemaCheck({
            ...common,
            schema: await loadSchema(mission, spec, index),
            ...(spec.file === undefined ? {} : { file: spec.file }),
          });
        case 'score': {
          const source = async (from: ScoreSource): Promise<ScoreFunction> => {
            if (from.command !== undefined) return commandScore({ command: from.command, cwd, ...process });
            const { modelScore } = await import('../ai-sdk/model-score.js');
            return modelScore({ ...(from.model as NonNullable<typeof from.model>), timeoutMs: spec.timeout, rateLimiter });
          };
          const score = spec.minOf === undefined ? await source(spec) : minOfTwo(await source(spec.minOf[0]), await source(spec.minOf[1]));
          return scoreCheck({ ...common, pass: spec.pass, score });
        }
      }
    }),
  );
  return checks.map((check, index) => (mission.checks[index]?.shadow === true ? { ...check, shadow: true } : check));
}
