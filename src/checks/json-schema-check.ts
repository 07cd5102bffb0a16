import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as AjvModule from 'ajv';
import type { ValidateFunction } from 'ajv';
import { finding, type Check, type CheckContext } from '../core/check.js';
import type { Finding, Stage } from '../core/finding.js';

export interface JsonSchemaCheckOptions {
  readonly name: string;
  readonly schema: Record<string, unknown>;
  /** JSON file in the candidate copy; the candidate's value when absent. */
  readonly file?: string;
  readonly stage?: Stage;
  readonly required?: boolean;
}

/** Format red line: the file (or the candidate's value) is JSON that the schema accepts. */
export function jsonSchemaCheck({ name, schema, file, stage = 'fast', required = true }: JsonSchemaCheckOptions): Check {
  const check = { name, stage, tier: 'format' as const, required };
  let validate: ValidateFunction;
  try {
    // Loaded on first use: a mission without a json-schema check does not pay for Ajv's modules at start.
    const { Ajv } = createRequire(import.meta.url)('ajv') as typeof AjvModule;
    validate = new Ajv({ allErrors: true, strict: false }).compile(schema);
  } catch (error) {
    throw new TypeError(`Expected a valid JSON Schema for check "${name}", got one that does not compile: ${(error as Error).message}`, {
      cause: error,
    });
  }
  return {
    ...check,
    async run({ dir, candidate }: CheckContext): Promise<Finding[]> {
      let data: unknown = candidate.value;
      if (file !== undefined) {
        if (dir === undefined)
          return [finding(check, 'error', ['check.no_workspace'], 'a json-schema check of a file needs a mission workspace')];
        let text: string;
        try {
          text = await readFile(path.join(dir, file), 'utf8');
        } catch {
          return [finding(check, 'fail', ['file.missing'], `${file} does not exist`, { location: { file } })];
        }
        try {
          data = JSON.parse(text);
        } catch (error) {
          return [finding(check, 'fail', ['json.parse_error'], `${file} is not JSON: ${(error as Error).message}`, { location: { file } })];
        }
      } else if (typeof data === 'string') {
        try {
          data = JSON.parse(data);
        } catch (error) {
          return [finding(check, 'fail', ['json.parse_error'], `the value is not JSON: ${(error as Error).message}`)];
        }
      }
      if (data === undefined) return [finding(check, 'fail', ['value.missing'], 'the candidate has no value to validate')];
      if (validate(data)) return [finding(check, 'pass', [], 'valid')];
      return (validate.errors ?? []).map((error) =>
        finding(
          check,
          'fail',
          [`schema.${error.keyword}:${error.instancePath || '/'}`],
          `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`,
          {
            ...(file === undefined ? {} : { location: { file } }),
          },
        ),
      );
    },
  };
}
