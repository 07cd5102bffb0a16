import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { StudyOptionError } from '../study-option-error.js';
import type { HandoffSeedsOptions } from './seeds.js';

const WEIGHTS = ['good', 'minor', 'critical'];
/** The fields a configuration file may hold, and the fields of each nested object. */
const FIELDS: Readonly<Record<string, readonly string[] | undefined>> = {
  seed: undefined,
  seeds: undefined,
  minutes: undefined,
  capacity: undefined,
  burstFactor: undefined,
  qualityWeights: WEIGHTS,
  draftWeights: WEIGHTS,
  approveProbability: WEIGHTS,
  watermarks: ['high', 'low'],
  tuner: ['initial', 'window', 'min', 'max', 'raiseAbove', 'lowerBelow'],
  configs: ['name', 'productionRate', 'reviewRate', 'burstProbability'],
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[], at: string): void {
  const extra = Object.keys(value).find((key) => !allowed.includes(key));
  if (extra !== undefined)
    throw new StudyOptionError({
      option: at,
      expected: `an object with only the fields ${allowed.join(', ')}`,
      got: `the field ${JSON.stringify(extra)}`,
    });
}

/**
 * Checks the shape of a handoff configuration (fields and nesting, not values: `runHandoffSeeds` checks
 * those and names the field) and returns it as study options.
 * @throws {StudyOptionError} naming the first unknown or misplaced field.
 */
export function handoffConfig(data: unknown): HandoffSeedsOptions {
  if (!isObject(data))
    throw new StudyOptionError({ option: '(root)', expected: 'an object of handoff study fields', got: JSON.stringify(data) });
  unknownKeys(data, Object.keys(FIELDS), '(root)');
  for (const [key, value] of Object.entries(data)) {
    const nested = FIELDS[key];
    if (nested === undefined) continue;
    if (key === 'configs') {
      if (!Array.isArray(value))
        throw new StudyOptionError({ option: key, expected: 'a list of configurations', got: JSON.stringify(value) });
      value.forEach((item: unknown, index) => {
        if (!isObject(item))
          throw new StudyOptionError({
            option: `configs[${index}]`,
            expected: 'an object {name, productionRate, reviewRate, burstProbability}',
            got: JSON.stringify(item),
          });
        unknownKeys(item, nested, `configs[${index}]`);
      });
    } else if (!isObject(value)) {
      throw new StudyOptionError({ option: key, expected: `an object {${nested.join(', ')}}`, got: JSON.stringify(value) });
    } else {
      unknownKeys(value, nested, key);
    }
  }
  return data as HandoffSeedsOptions;
}

/**
 * Reads a handoff configuration from a JSON or YAML file: any of `seed`, `seeds`, `minutes`, `capacity`,
 * `burstFactor`, `qualityWeights`, `draftWeights`, `approveProbability`, `watermarks`, `tuner` and
 * `configs`, as `runHandoffSeeds` takes them.
 * @throws {StudyOptionError} for option `(file)` when the file cannot be read or parsed, else naming the bad field.
 * @example
 * const options = await loadHandoffConfig('handoff.yaml');
 * runHandoffSeeds({ ...options, seeds: 20 });
 */
export async function loadHandoffConfig(file: string): Promise<HandoffSeedsOptions> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StudyOptionError({
      option: '(file)',
      expected: 'a readable JSON or YAML file',
      got: `${JSON.stringify(file)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
    });
  }
  let data: unknown;
  try {
    data = path.extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new StudyOptionError({
      option: '(file)',
      expected: 'valid JSON or YAML',
      got: `${JSON.stringify(file)}: ${(error as Error).message.split('\n')[0]}`,
    });
  }
  return handoffConfig(data);
}
