import type { z } from 'zod';
import type { MissionIssue } from '../errors/mission-error.js';

/** `checks[1].timeout` from `['checks', 1, 'timeout']`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(root)';
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`)).join('');
}

/** A short, human description of a found value. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing (missing)';
  if (value === null) return 'null';
  if (Array.isArray(value)) return `an array of ${value.length}`;
  if (typeof value === 'object') return 'an object';
  // JSON would spell these `null`.
  if (typeof value === 'number' && !Number.isFinite(value)) return `number ${value}`;
  const text = JSON.stringify(value);
  return `${typeof value} ${text.length > 60 ? `${text.slice(0, 57)}...` : text}`;
}

function expectedOf(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return issue.expected === 'int' ? 'an integer' : issue.expected;
    case 'invalid_value':
      return `one of ${issue.values.map((value) => JSON.stringify(value)).join(' | ')}`;
    case 'unrecognized_keys':
      return 'only known keys';
    case 'too_small':
      return `${issue.origin === 'array' || issue.origin === 'string' ? 'length ' : ''}${issue.inclusive === false ? '>' : '>='} ${String(issue.minimum)}`;
    case 'too_big':
      return `${issue.origin === 'array' || issue.origin === 'string' ? 'length ' : ''}${issue.inclusive === false ? '<' : '<='} ${String(issue.maximum)}`;
    case 'invalid_union': {
      const options = (issue as { options?: unknown[] }).options;
      return options === undefined ? 'one of the allowed shapes' : `one of ${options.map((option) => JSON.stringify(option)).join(' | ')}`;
    }
    case 'invalid_format':
      // A regex rule shows its pattern and the schema's plain-words reading of it (zod's own message only repeats the pattern).
      if (issue.format === 'regex' && issue.pattern !== undefined)
        return `a string matching ${issue.pattern}${issue.message.includes(issue.pattern) ? '' : ` (${issue.message})`}`;
      return `a ${issue.format}`;
    default:
      return issue.message;
  }
}

/** Turns zod issues (parsed with `reportInput: true`) into path / expected / got triples. */
export function toMissionIssues(issues: readonly z.core.$ZodIssue[]): MissionIssue[] {
  return issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const path = formatPath(issue.path);
      return {
        path,
        expected: 'only known keys',
        got: issue.keys.join(', '),
        message: `unknown key${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => `"${key}"`).join(', ')}`,
      };
    }
    const discriminator = (issue as { discriminator?: string }).discriminator;
    const path = formatPath(issue.path);
    const input = (issue as { input?: unknown }).input;
    const found =
      issue.code === 'invalid_union' && discriminator !== undefined && typeof input === 'object' && input !== null
        ? (input as Record<string, unknown>)[discriminator]
        : input;
    const expected = expectedOf(issue);
    const got = describeValue(found);
    // A union the schema gave a message of its own (zod's default is "Invalid input") says what the field takes.
    const ownMessage =
      issue.code === 'custom' || (issue.code === 'invalid_union' && discriminator === undefined && issue.message !== 'Invalid input');
    const message = ownMessage ? issue.message : `expected ${expected}, got ${got}`;
    return { path, expected, got, message };
  });
}
