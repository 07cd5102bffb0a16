// An agent preset: the command line of one agent CLI, as `redline run --agent <name>` runs it
// (docs/agents.md#presets). Each preset file holds one CLI; presets.ts lists them.

/** Where a preset's line finds the model endpoint, if it is given one. */
export type PresetEndpoint =
  /** `$REDLINE_AGENT_BASE_URL`: the base URL given with the preset (`--base-url`). */
  | 'base-url'
  /** `$REDLINE_METER_URL`: the metering endpoint of the attempt, standing in for `--meter-upstream`. */
  | 'meter';

/** What a preset's line is built from. */
export interface PresetSettings {
  /** The model, passed to the CLI's own model option. */
  readonly model?: string;
  readonly endpoint?: PresetEndpoint;
  /** The variable that holds the API key, when it is not the one the CLI reads. */
  readonly apiKeyEnv?: string;
  /** More arguments, after the preset's own and before the prompt: a later option overrides an earlier one. */
  readonly args: readonly string[];
  /** Whether the agent runs under redline's bubblewrap sandbox (mission `sandbox: bwrap`). */
  readonly sandboxed: boolean;
}

/** Where a line of the agent's output came from: its transcript (its stdout) or its stderr. */
export type OutputStream = 'transcript' | 'stderr';

export interface AgentPreset {
  readonly name: string;
  /** The npm package and the version the presets are tested with. */
  readonly package: string;
  readonly version: string;
  /** The program the package installs. */
  readonly bin: string;
  /** The variable the CLI reads its key from. */
  readonly keyEnv: string;
  /** Whether the metering endpoint speaks the CLI's protocol. */
  readonly metered: boolean;
  /** The shell command line that runs `program` (a quoted path or name) once for an attempt. */
  line(program: string, settings: PresetSettings): string;
  /**
   * The CLI's own error message on one line of its output (an error event, a failed result, a retry
   * notice), never a tool's output; undefined for any other line. `failureIn` tells from it a failure of
   * the agent's environment — its endpoint out of reach, its key refused — that every attempt would meet.
   */
  errorIn(line: string, stream: OutputStream): string | undefined;
}

/**
 * The preset's own `words` for an option, unless the extra arguments name one of its `names` themselves
 * (`--approval-mode yolo`, `--approval-mode=yolo`): then the user's replaces the preset's, since these
 * CLIs refuse an option given twice.
 */
export function unlessGiven(args: readonly string[], names: readonly string[], words: string): string[] {
  return args.some((arg) => names.some((name) => arg === name || arg.startsWith(`${name}=`))) ? [] : [words];
}

/** Single-quotes a word for /bin/sh. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The endpoint variable a line reads, quoted for the shell. */
export function endpointWord(endpoint: PresetEndpoint): string {
  return endpoint === 'meter' ? '"$REDLINE_METER_URL"' : '"$REDLINE_AGENT_BASE_URL"';
}

/** `NAME="$OTHER"` when the key is in another variable than the CLI's own. */
export function keyAssignment(keyEnv: string, apiKeyEnv: string | undefined): string[] {
  return apiKeyEnv === undefined || apiKeyEnv === keyEnv ? [] : [`${keyEnv}="$${apiKeyEnv}"`];
}

const CONNECTION =
  /ECONNREFUSED|connection refused|connection error|connection failed|fetch failed|error sending request|ENOTFOUND|EAI_AGAIN|getaddrinfo|connection_failed/i;
const AUTHENTICATION =
  /\b401\b|unauthori[sz]ed|authentication|invalid[ _-]?(?:x-)?api[ _-]?key|incorrect api key|api key not valid|invalid_api_key/i;

/** The failure a message of the agent's own (never a tool's output) names: the endpoint out of reach, or the key refused. */
export function failureIn(message: string): string | undefined {
  const said = message.trim().slice(0, 500);
  if (CONNECTION.test(said)) return `the agent cannot reach its model endpoint: ${said}`;
  if (AUTHENTICATION.test(said)) return `the model endpoint refused the agent's credentials: ${said}`;
  return undefined;
}

/** A JSON event of a transcript line, or undefined. */
export function eventOf(line: string): Record<string, unknown> | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The string at `key` of an object, if it is one. */
export function textAt(value: unknown, key: string): string | undefined {
  const found = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return typeof found === 'string' ? found : undefined;
}
