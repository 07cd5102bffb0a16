// What a scripted model does, independent of the wire protocol: the script says what the agent should do
// ("run this shell command", "write this file", "call this tool", "say done"), and each model call is
// answered with the next tool call of it, in the tool the agent offers for that job and the argument shape
// that tool takes.

/** One step of a script. */
export type ScriptStep =
  /** Run a command through the agent's shell tool. */
  | { readonly shell: string }
  /** Write a file (relative to the agent's working directory) with the agent's file tool, else through its shell tool. */
  | { readonly write: { readonly path: string; readonly content: string } }
  /**
   * Call a tool by name with these arguments: the tool of that name, else the one whose name ends in
   * `__<tool>` or `.<tool>` (clients name an MCP server's tools after it: Claude Code's
   * `mcp__redline__redline_submit`; Codex's `mcp__redline` namespace, read as `mcp__redline.redline_submit`).
   */
  | { readonly tool: string; readonly input: Readonly<Record<string, unknown>> }
  /** Answer with text: the agent's turn, and so its run, ends. */
  | { readonly say: string };

/** A script: its steps in order, then `done` as the final answer; with `loop`, its last step forever instead. */
export interface Script {
  readonly steps: readonly ScriptStep[];
  /** Repeat the last step for every call past the script (a runaway agent). @default false */
  readonly loop?: boolean;
  /** The final answer after the steps. @default 'done' */
  readonly done?: string;
  /** Refuse every model call with this HTTP status (401: a key the endpoint does not take) instead. */
  readonly refuse?: number;
}

/** What the server reads of a model call, whatever its protocol. */
export interface Conversation {
  /** The tools the request offers, by name, each with the names of its parameters. */
  readonly tools: Readonly<Record<string, readonly string[]>>;
  /** How many tool results the conversation holds: the script's position. */
  readonly toolResults: number;
  /** The request's system and user text, where agents state their working directory. */
  readonly text: string;
}

/** One answer: a tool call, or text. */
export type Turn =
  | { readonly kind: 'tool'; readonly name: string; readonly arguments: Readonly<Record<string, unknown>> }
  | { readonly kind: 'text'; readonly text: string };

/** Shell tools of the agents, by name, in the order they are preferred. */
const SHELL_TOOLS = ['exec_command', 'shell_command', 'shell', 'Bash', 'run_shell_command'];

/** File tools that take a path and the whole content; `read` is the tool the agent wants called on a file first. */
const WRITE_TOOLS: readonly { readonly write: string; readonly read?: string }[] = [
  { write: 'Write', read: 'Read' },
  { write: 'write_file', read: 'read_file' },
];

/** The argument a tool takes a path in. */
const pathParameter = (parameters: readonly string[]): string =>
  ['file_path', 'absolute_path', 'path'].find((name) => parameters.includes(name)) ?? 'file_path';

/** A shell tool's arguments for `command`, by the parameters it declares (Codex's `shell` takes an argv). */
function shellArguments(name: string, parameters: readonly string[], command: string): Record<string, unknown> {
  if (parameters.includes('cmd')) return { cmd: command };
  if (name === 'shell') return { command: ['bash', '-lc', command] };
  return {
    command,
    ...(parameters.includes('description') ? { description: 'scripted command' } : {}),
    ...(parameters.includes('is_background') ? { is_background: false } : {}),
  };
}

/** The working directory an agent states in its prompt (Claude Code, Qwen Code and Gemini CLI do). */
export function workingDirectory(text: string): string | undefined {
  const said =
    /(?:working directory|working in the directory|current directory)(?: is)?[:\s]{1,4}['"`]?(\/[^\s'"`<>]+)/i.exec(text) ??
    /Workspace Directories:\**\s*-\s*(\/[^\s'"`<>]+)/i.exec(text);
  return said?.[1]?.replace(/[.,;:)]+$/, '');
}

const quoted = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/** The tool calls one step takes for an agent offering `tools` in `directory`. */
function callsOf(step: ScriptStep, tools: Conversation['tools'], directory: string | undefined): Turn[] {
  if ('say' in step) return [{ kind: 'text', text: step.say }];
  const offered = Object.keys(tools).join(', ');
  if ('tool' in step) {
    const name =
      tools[step.tool] === undefined
        ? Object.keys(tools).find((tool) => tool.endsWith(`__${step.tool}`) || tool.endsWith(`.${step.tool}`))
        : step.tool;
    if (name === undefined) return [{ kind: 'text', text: `scripted model: no tool ${step.tool} among ${offered}` }];
    return [{ kind: 'tool', name, arguments: step.input }];
  }
  const shellName = SHELL_TOOLS.find((name) => tools[name] !== undefined);
  const shell = (command: string): Turn[] => {
    if (shellName === undefined) return [{ kind: 'text', text: `scripted model: no shell tool among ${offered}` }];
    return [{ kind: 'tool', name: shellName, arguments: shellArguments(shellName, tools[shellName] ?? [], command) }];
  };
  if ('shell' in step) return shell(step.shell);
  const file = WRITE_TOOLS.find((tool) => tools[tool.write] !== undefined);
  if (file === undefined || directory === undefined) {
    // No command substitution: some agents refuse it (Gemini CLI).
    const folder = step.write.path.includes('/')
      ? `mkdir -p ${quoted(step.write.path.slice(0, step.write.path.lastIndexOf('/')))} && `
      : '';
    return shell(`${folder}printf %s ${quoted(step.write.content)} > ${quoted(step.write.path)}`);
  }
  const absolute = `${directory.replace(/\/+$/, '')}/${step.write.path}`;
  const read = file.read === undefined ? undefined : tools[file.read];
  return [
    ...(read === undefined ? [] : [{ kind: 'tool' as const, name: file.read as string, arguments: { [pathParameter(read)]: absolute } }]),
    { kind: 'tool', name: file.write, arguments: { [pathParameter(tools[file.write] ?? [])]: absolute, content: step.write.content } },
  ];
}

/**
 * The answer to one model call: a request without tools (a title, a summary, a check the agent makes on the
 * side) gets `ok`; else the script's calls are laid out for the tools offered, and the call at the
 * conversation's position is the answer — past the end, the final text, or with `loop` the last step again.
 */
export function nextTurn(script: Script, conversation: Conversation): Turn {
  if (Object.keys(conversation.tools).length === 0) return { kind: 'text', text: 'ok' };
  const directory = workingDirectory(conversation.text);
  const steps = script.steps.map((step) => callsOf(step, conversation.tools, directory));
  const calls = steps.flat();
  const at = conversation.toolResults;
  if (at < calls.length) return calls[at] as Turn;
  const last = steps.at(-1);
  if (script.loop === true && last !== undefined && last.length > 0) return last[(at - calls.length) % last.length] as Turn;
  return { kind: 'text', text: script.done ?? 'done' };
}
