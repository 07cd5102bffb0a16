import { canonicalJson } from '../core/canonical-json.js';
import { chainHash } from '../core/hash-chain.js';
import type { LedgerRecord, StoredRecord } from './ledger.js';

/** Serializes a record canonically and links it to its predecessor's hash. */
export function chainRecord(prevHash: string, record: LedgerRecord): StoredRecord {
  const body = canonicalJson({ runId: record.runId, seq: record.seq, type: record.type, at: record.at, data: record.data });
  return { runId: record.runId, seq: record.seq, type: record.type, body, prevHash, hash: chainHash(prevHash, body) };
}

/** Reads a stored record back. */
export function parseRecord(stored: StoredRecord): LedgerRecord {
  return JSON.parse(stored.body) as LedgerRecord;
}
