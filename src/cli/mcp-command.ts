import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { openSigner } from '../ledger/signing-key.js';
import { loadMission } from '../mission/load.js';
import type { Output } from './run-command.js';
import { clean } from './terminal-text.js';

export interface McpCommandOptions {
  /** The mission file whose red lines the agent gets as tools. */
  readonly mission: string;
  /** Ledger location: a SQLite file or a postgres:// URL. */
  readonly ledger?: string;
  /** The Ed25519 private key seals are signed with (else `$REDLINE_SIGNING_KEY`, else the local key). */
  readonly signingKey?: string;
}

/**
 * `redline mcp --mission FILE`: serves the mission's checks and attempt submission to an agent as MCP tools
 * over stdio, until the client closes stdin. Stdout carries the protocol alone; notes go to stderr.
 */
export async function mcpCommand(options: McpCommandOptions, { progress }: Output): Promise<number> {
  const mission = await loadMission(options.mission);
  if (mission.workspaceDir === undefined)
    throw new TypeError(`Expected a mission with a workspace (the agent's working copy), got mission ${mission.id} without one`);
  const location = ledgerLocation(options.ledger, mission.baseDir);
  const ledger = await openLedger(location);
  try {
    // Opened before the server, so a bad key refuses to serve instead of leaving runs unsealed.
    const { signer } = await openSigner({ explicit: options.signingKey, location });
    const { serveMcp } = await import('../mcp/mcp-server.js');
    const workspace = mission.workspaceDir;
    await serveMcp({
      mission,
      ledger,
      signer,
      onServing: () =>
        progress(
          `redline mcp: serving mission ${clean(mission.id)} on ${clean(workspace)} (baseline taken), ledger ${clean(displayLocation(location))}`,
        ),
    });
    return 0;
  } finally {
    await ledger.close();
  }
}
