/** One program a package.json script runs: its name (the basename, `npx` and env assignments dropped) and arguments. */
export interface ScriptCommand {
  readonly bin: string;
  readonly args: readonly string[];
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const LAUNCHERS = new Set(['npx', 'cross-env', 'env', 'exec', 'dotenv', '--']);

/**
 * The programs a script line runs, in order: split at `&&`, `||`, `;` and `|`, words split at whitespace
 * (quoted words with spaces stay split: this reads a runner's name and flags, it is no shell).
 * @example
 * scriptCommands('NODE_ENV=test npx vitest run && tsc');
 * // [{ bin: 'vitest', args: ['run'] }, { bin: 'tsc', args: [] }]
 */
export function scriptCommands(script: string): ScriptCommand[] {
  return script
    .split(/&&|\|\||[;|]/)
    .map((segment) => segment.trim().split(/\s+/).filter(Boolean))
    .flatMap((words) => {
      let index = 0;
      while (index < words.length && (ASSIGNMENT.test(words[index] as string) || LAUNCHERS.has(words[index] as string))) index += 1;
      const first = words[index];
      if (first === undefined) return [];
      return [{ bin: first.split('/').at(-1) as string, args: words.slice(index + 1) }];
    });
}

/**
 * The arguments without the options `names` (`--name value`, `--name=value`, `-n value`), each of which
 * takes a value when `valued`.
 */
export function withoutOptions(args: readonly string[], names: readonly string[], valued = true): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] as string;
    if (names.some((name) => arg.startsWith(`${name}=`))) continue;
    if (names.includes(arg)) {
      if (valued) index += 1;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}
