// The tools `redline mcp` serves, as `tools/list` answers them: plain data, so the handshake is answered
// before the SDK, the mission or the loop is loaded (see stdio-front.ts).

/** The tools' names. */
export type ToolName = 'redline_checks' | 'redline_submit' | 'redline_status';

/** What a client is told of a tool: its input as JSON Schema, and the hints clients with approval policies go by. */
export interface ToolDefinition {
  readonly name: ToolName;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: { readonly type: 'object'; readonly properties: Readonly<Record<string, unknown>> };
  readonly annotations: {
    readonly title: string;
    readonly readOnlyHint: boolean;
    readonly destructiveHint: boolean;
    readonly idempotentHint: boolean;
    readonly openWorldHint: boolean;
  };
}

/** Longest run id a call may name. */
const RUN_ID_CAP = 200;

const RUN_ID = {
  type: 'object',
  properties: {
    runId: {
      type: 'string',
      minLength: 1,
      maxLength: RUN_ID_CAP,
      description: "the id of this session's run (optional: a session has one run)",
    },
  },
} as const;

function tool(name: ToolName, title: string, description: string, hints: { readOnly: boolean; idempotent: boolean }): ToolDefinition {
  return {
    name,
    title,
    description,
    inputSchema: name === 'redline_checks' ? { type: 'object', properties: {} } : RUN_ID,
    // Nothing is deleted or overwritten (the workspace is only read) and nothing outside this machine is reached.
    annotations: { title, readOnlyHint: hints.readOnly, destructiveHint: false, idempotentHint: hints.idempotent, openWorldHint: false },
  };
}

/** The tools, in the order `tools/list` gives them. */
export const TOOLS: readonly ToolDefinition[] = Object.freeze([
  tool(
    'redline_checks',
    "Run the mission's checks",
    "Run the mission's checks on your working copy now, in an isolated copy (nothing is recorded). Returns passed, the changed paths and the normalized findings, distinct failing ones first.",
    { readOnly: true, idempotent: true },
  ),
  tool(
    'redline_submit',
    'Submit the working copy as an attempt',
    'Propose your working copy as the next attempt of the recorded run (the run starts with the session). The checks and the guards decide: continue (the findings and the budgets left) or stop (the sealed outcome, verification and stop reason). Only the checks decide: nothing you say can complete a run.',
    // Each submit is an attempt of the run: recorded, and counted against its budget.
    { readOnly: false, idempotent: false },
  ),
  tool(
    'redline_status',
    'Where the run stands',
    'Where the run stands, at once (also while a submit runs): its attempts, the budgets left, the latest findings, the checks running now and for how long, and its outcome once sealed.',
    { readOnly: true, idempotent: true },
  ),
]);

/**
 * The run id a call names, if any; every other argument is dropped (an agent cannot complete a run by
 * saying so: `done: true` is not an input).
 * @throws {TypeError} for a run id that is not a string of 1 to 200 characters.
 */
export function runIdOf(args: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const runId = args?.runId;
  if (runId === undefined) return undefined;
  if (typeof runId !== 'string' || runId.length === 0 || runId.length > RUN_ID_CAP)
    throw new TypeError(`Expected runId to be a string of 1 to ${RUN_ID_CAP} characters, got ${JSON.stringify(runId)?.slice(0, 300)}`);
  return runId;
}
