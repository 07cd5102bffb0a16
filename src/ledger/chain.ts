import { createHash } from 'node:crypto';
import { canonicalJson } from '../loop/canonical-json.js';
import type { LedgerRecord, StoredRecord } from './ledger.js';

/** The `prevHash` of a run's first record. */
export const GENESIS = '0'.repeat(64);

export function chainHash(prevHash: string, body: string): string {
  return createHash('sha256').update(prevHash).update(body).digest('hex');
}

/** Serializes a record canonically and links it to its predecessor's hash. */
export function chainRecord(prevHash: string, record: LedgerRecord): StoredRecord {
  const body = canonicalJson({ runId: record.runId, seq: record.seq, type: record.type, at: record.at, data: record.data });
  return { runId: record.runId, seq: record.seq, type: record.type, body, prevHash, hash: chainHash(prevHash, body) };
}

/** Reads a stored record back. */
export function parseRecord(stored: StoredRecord): LedgerRecord {
  return JSON.parse(stored.body) as LedgerRecord;
}
