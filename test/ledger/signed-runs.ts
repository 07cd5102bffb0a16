import { generateKeyPairSync } from 'node:crypto';
import { finding, type Check } from '../../src/core/check.js';
import { chainRecord } from '../../src/ledger/chain.js';
import { GENESIS } from '../../src/core/hash-chain.js';
import type { Ledger, LedgerRecord } from '../../src/ledger/ledger.js';
import type { PublicKeyEntry, Signer } from '../../src/ledger/seal-signature.js';
import { keyIdOf, keySigner } from '../../src/ledger/signing-key.js';
import { runMission, type RunResult } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import type { ExportedRun } from './records.js';

/** A fresh Ed25519 key: its signer, and its public key as `verify` takes it. */
export function keyPair(source: string): { signer: Signer; publicKey: PublicKeyEntry } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { signer: keySigner(privateKey), publicKey: { keyId: keyIdOf(publicKey), key: publicKey, source } };
}

/** A demand check over the candidate's value. */
const valueIsOk: Check = {
  name: 'value',
  stage: 'fast',
  tier: 'demand',
  required: true,
  async run({ candidate }) {
    return [candidate.value === 'ok' ? finding(this, 'pass', [], 'matches') : finding(this, 'fail', ['value.differs'], 'differs')];
  },
};

/**
 * A real run of the loop that completes at attempt 2, started at `at` (its clock ticks 1 ms per reading,
 * so runs started at different `at` keep their order), its seal signed by `signer` when given, with id
 * `runId` when given.
 */
export function sealedRun(ledger: Ledger, { at, signer, runId }: { at: number; signer?: Signer; runId?: string }): Promise<RunResult> {
  let clock = at;
  return runMission({
    mission: defineMission({ id: 'signed', goal: 'say ok', stopPolicy: { guards: [] } }),
    proposer: functionProposer(({ attempt }) => ({ value: attempt === 1 ? 'not yet' : 'ok' })),
    checks: [valueIsOk],
    ledger,
    ...(signer === undefined ? {} : { signer }),
    _internal: { now: () => (clock += 1), ...(runId === undefined ? {} : { generateId: () => runId }) },
  });
}

/**
 * What someone with write access and no private key can do: rewrite record `seq`'s data and recompute
 * every hash after it and the run row, so the chain verifies again. The seal keeps its signature.
 */
export function forge(
  { run, records }: ExportedRun,
  seq: number,
  edit: (data: Record<string, unknown>) => Record<string, unknown>,
): ExportedRun {
  let prevHash = seq === 0 ? GENESIS : (records[seq - 1]?.hash as string);
  const forged = records.map((row) => {
    if (row.seq < seq) return row;
    const record = JSON.parse(row.body) as LedgerRecord;
    const stored = chainRecord(prevHash, row.seq === seq ? { ...record, data: edit({ ...record.data }) } : record);
    prevHash = stored.hash;
    return stored;
  });
  return { run: { ...run, lastHash: prevHash }, records: forged };
}
