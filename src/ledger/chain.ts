import { canonicalJson } from '../core/canonical-json.js';
import { chainHash } from '../core/hash-chain.js';
import type { LedgerRecord, StoredRecord } from './ledger.js';
import { parseRunRecord, type RunRecord } from './run-records.js';

/** Serializes a record canonically and links it to its predecessor's hash. */
export function chainRecord(prevHash: string, record: LedgerRecord): StoredRecord {
  const body = canonicalJson({ runId: record.runId, seq: record.seq, type: record.type, at: record.at, data: record.data });
  return { runId: record.runId, seq: record.seq, type: record.type, body, prevHash, hash: chainHash(prevHash, body) };
}

/**
 * Reads a stored record back, parsed into its type.
 * @throws {RecordParseError} when it does not have the shape of its type.
 */
export function parseRecord(stored: StoredRecord): RunRecord {
  return parseRunRecord(stored);
}
