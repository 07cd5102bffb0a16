import { assertSdkInstalled, StdioFront } from '../mcp/stdio-front.js';
import type { Output } from './run-command.js';
import { clean } from './terminal-text.js';

// Only the front is loaded before the client's handshake is answered: the mission schema, the ledger's
// driver, the loop and the SDK load after it (docs/agents.md, "Registering it"; bench/mcp-start.ts).

export interface McpCommandOptions {
  /** The mission file whose red lines the agent gets as tools. */
  readonly mission: string;
  /** Ledger location: a SQLite file or a postgres:// URL. */
  readonly ledger?: string;
  /** The Ed25519 private key seals are signed with (else `$REDLINE_SIGNING_KEY`, else the local key). */
  readonly signingKey?: string;
  /** Start the session's run even though the same plan thrashed on the mission before (recorded). */
  readonly forceSamePlan?: boolean;
}

/** How long the server goes on after SIGTERM or SIGINT to seal the open run and remove its directories. */
export const SEAL_BOUND_MS = 10_000;

/**
 * Ends the session at the first SIGTERM or SIGINT — and keeps handling both for the rest of the process, so
 * that a client's SIGTERM right after it closed stdin (Codex sends one 1–2 ms later) does not kill the
 * server mid-seal — but exits after {@link SEAL_BOUND_MS} whatever is left (a run left unsealed is
 * sealed `crashed` by `redline ledger recover`).
 */
function stopOnSignals(progress: (line: string) => void): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let bound: NodeJS.Timeout | undefined;
    const onSignal = (signal: NodeJS.Signals): void => {
      resolve(signal);
      bound ??= setTimeout(() => {
        progress(
          `redline mcp: still sealing ${SEAL_BOUND_MS / 1000} s after ${signal}: exiting; redline ledger recover seals what is left`,
        );
        process.exit(1);
      }, SEAL_BOUND_MS).unref();
    };
    process.on('SIGTERM', onSignal).on('SIGINT', onSignal);
  });
}

/**
 * `redline mcp --mission FILE`: serves the mission's checks and attempt submission to an agent as MCP tools
 * over stdio, until the client closes stdin. Stdout carries the protocol alone; notes go to stderr.
 */
export async function mcpCommand(options: McpCommandOptions, { progress }: Output): Promise<number> {
  assertSdkInstalled();
  const front = new StdioFront({ input: process.stdin, output: process.stdout });
  const stop = stopOnSignals(progress);
  let stopping = false;
  void Promise.race([stop, front.ended]).then(() => (stopping = true));
  try {
    await front.handshake();
    const { loadMission } = await import('../mission/load.js');
    const mission = await loadMission(options.mission);
    if (mission.workspaceDir === undefined)
      throw new TypeError(`Expected a mission with a workspace (the agent's working copy), got mission ${mission.id} without one`);
    // A client that only checked the server's health (`claude mcp list`) is gone already: no session to open.
    if (stopping) return 0;
    // The baseline next, before the rest loads: the agent may start editing as soon as it has the tools.
    const { takeBaseline } = await import('../mcp/session-baseline.js');
    const baseline = await takeBaseline({ mission });
    try {
      const { displayLocation, ledgerLocation, openLedger } = await import('../ledger/open-ledger.js');
      const location = ledgerLocation(options.ledger, mission.baseDir);
      const ledger = await openLedger(location);
      try {
        // Opened before the session, so a bad key refuses to serve instead of leaving runs unsealed.
        const { openSigner } = await import('../ledger/signing-key.js');
        const { signer } = await openSigner({ explicit: options.signingKey, location });
        // What an earlier server of this mission left when it was killed: its run sealed `crashed`, its
        // baseline and run directories and its temporary folders removed. Stdout is the protocol's alone.
        const { recoverBeforeRun } = await import('./run-command.js');
        await recoverBeforeRun({ ledger, location, output: { print: progress, progress }, missionId: mission.id, signer });
        const { serveMcp } = await import('../mcp/mcp-server.js');
        const workspace = mission.workspaceDir;
        await serveMcp({
          front,
          stop,
          mission,
          baseline,
          ledger,
          signer,
          ...(options.forceSamePlan === true ? { forceSamePlan: true } : {}),
          onServing: () =>
            progress(
              `redline mcp: serving mission ${clean(mission.id)} on ${clean(workspace)} (baseline taken, run started), ledger ${clean(displayLocation(location))}`,
            ),
        });
        return 0;
      } finally {
        await ledger.close();
      }
    } finally {
      await baseline.remove();
    }
  } finally {
    await front.close();
  }
}
