import { readFile } from 'node:fs/promises';
import { ProposerError } from '../errors/proposer-error.js';
import type { Proposal, Proposer } from './proposer.js';

/** Plays recorded proposals in order: attempt N gets entry N − 1. Running out is a proposer error. */
export function replayProposer(proposals: readonly unknown[], { name = 'replay' }: { name?: string } = {}): Proposer {
  if (!Array.isArray(proposals)) throw new TypeError(`Expected an array of recorded proposals, got ${typeof proposals}`);
  const recorded = Object.freeze([...proposals]);
  return {
    name,
    capabilities: { reportsTokens: true, reportsCost: true },
    identity: { kind: 'replay', name },
    async propose({ attempt }) {
      if (attempt > recorded.length) {
        throw new ProposerError({
          code: 'proposer.exhausted',
          message: `no recorded proposal for attempt ${attempt} (${recorded.length} recorded)`,
        });
      }
      return recorded[attempt - 1] as Proposal;
    },
  };
}

/** Reads recorded proposals from a JSON file holding an array. */
export async function loadReplay(file: string): Promise<readonly unknown[]> {
  const data: unknown = JSON.parse(await readFile(file, 'utf8'));
  if (!Array.isArray(data))
    throw new TypeError(`Expected ${file} to hold a JSON array of proposals, got ${data === null ? 'null' : typeof data}`);
  return data;
}
