import { createHash } from 'node:crypto';

/** The `prevHash` of a chain's first entry (a run's first record, a review queue's first journal entry). */
export const GENESIS = '0'.repeat(64);

/** The hash linking an entry's canonical body to its predecessor's hash. */
export function chainHash(prevHash: string, body: string): string {
  return createHash('sha256').update(prevHash).update(body).digest('hex');
}

/** What is wrong with the first bad entry of a chain. */
export type ChainProblem = 'modified' | 'missing' | 'reordered' | 'truncated' | 'appended_after_seal' | 'appended';
