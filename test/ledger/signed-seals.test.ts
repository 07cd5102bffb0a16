import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { importJsonl } from '../../src/ledger/export.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { checkDigest, ledgerDigest } from '../../src/ledger/ledger-digest.js';
import { verifyLedger, type RunVerification } from '../../src/ledger/verify.js';
import { recoverRuns } from '../../src/loop/resume.js';
import { runMission } from '../../src/loop/run-mission.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { sqlBackends, withLedger } from './backends.js';
import { exportAll, type ExportedRun } from './records.js';
import { forge, keyPair, sealedRun } from './signed-runs.js';
import { dyingAfter } from '../helpers/ledgers.js';

/** Every run's result, as `verifyLedger` streams them. */
async function verifyEach(ledger: Ledger, options: Parameters<typeof verifyLedger>[1] = {}): Promise<RunVerification[]> {
  const results: RunVerification[] = [];
  await verifyLedger(ledger, { ...options, onRun: (result) => void results.push(result) });
  return results;
}

/** Writes exported runs into another ledger through `ledger import`'s own path (JSONL), as a forger would hand them over. */
async function importRuns(ledger: Ledger, runs: readonly ExportedRun[]): Promise<void> {
  const lines = runs.flatMap(({ run, records }) => [
    JSON.stringify({ kind: 'run', ...run }),
    ...records.map((record) => JSON.stringify({ kind: 'record', ...record })),
  ]);
  await importJsonl(ledger, lines);
}

for (const backend of sqlBackends) {
  describe(`signed seals on ${backend.name}`, () => {
    it('catches a run forged with recomputed hashes by its seal signature, though its chain verifies', async () => {
      const key = keyPair('key.pub');
      await withLedger(backend.open, async ({ ledger }) => {
        const honest = await sealedRun(ledger, { at: 1_000, signer: key.signer });
        const other = await sealedRun(ledger, { at: 2_000, signer: key.signer });
        assert.deepEqual(
          (await verifyEach(ledger, { signatures: { keys: [key.publicKey] } })).map((item) => [item.ok, item.signature?.status]),
          [
            [true, 'valid'],
            [true, 'valid'],
          ],
        );

        // Attempt 1 (record 1) becomes the candidate that passed; every later hash and the run row follow.
        const exported = await exportAll(ledger);
        const forged = exported.map((run) =>
          run.run.runId === honest.runId
            ? forge(run, 1, (data) => ({ ...data, candidate: { ...(data.candidate as object), value: 'ok' } }))
            : run,
        );
        await withLedger(backend.open, async ({ ledger: copy }) => {
          await importRuns(copy, forged);
          const chainsOnly = await verifyEach(copy);
          assert.ok(
            chainsOnly.every((item) => item.ok),
            'without signatures the forgery is invisible: every chain verifies',
          );
          const results = await verifyEach(copy, { signatures: { keys: [key.publicKey] } });
          const bad = results.find((item) => item.runId === honest.runId);
          assert.equal(bad?.ok, false);
          assert.equal(bad?.firstBad, undefined, 'the chain itself verifies');
          assert.deepEqual(bad?.signature, { status: 'invalid', keyId: key.publicKey.keyId });
          assert.match(bad?.signatureProblem ?? '', /signature does not verify with key [0-9a-f]{16}/);
          assert.deepEqual(results.find((item) => item.runId === other.runId)?.signature, {
            status: 'valid',
            keyId: key.publicKey.keyId,
            source: 'key.pub',
          });
        });
      });
    });

    it('catches a deleted, altered or back-dated run with a digest taken earlier, and allows runs added since', async () => {
      const key = keyPair('key.pub');
      await withLedger(backend.open, async ({ ledger }) => {
        const runs = [];
        for (const at of [1_000, 2_000, 3_000]) runs.push(await sealedRun(ledger, { at, signer: key.signer }));
        const head = await ledgerDigest(await ledger.runs());
        assert.deepEqual([head.count, head.total, head.firstUnsealed], [3, 3, undefined]);
        assert.match(head.digest, /^3:0:[0-9a-f]{64}$/);

        await sealedRun(ledger, { at: 4_000, signer: key.signer });
        const later = await checkDigest(await ledger.runs(), head.digest);
        assert.deepEqual([later.ok, later.count, later.total], [true, 3, 4]);

        const exported = await exportAll(ledger);
        const second = runs[1]?.runId;
        const variants: Record<string, (copy: Ledger) => Promise<unknown>> = {
          deleted: (copy) =>
            importRuns(
              copy,
              exported.filter((run) => run.run.runId !== second),
            ),
          altered: (copy) =>
            importRuns(
              copy,
              exported.map((run) => (run.run.runId === second ? forge(run, 1, (data) => ({ ...data, note: 'x' })) : run)),
            ),
          // A whole new run, signed and verifying, back-dated among the covered ones.
          backdated: async (copy) => {
            await importRuns(copy, exported);
            await sealedRun(copy, { at: 1_500, signer: key.signer });
          },
        };
        for (const [what, write] of Object.entries(variants)) {
          await withLedger(backend.open, async ({ ledger: copy }) => {
            await write(copy);
            assert.ok(
              (await verifyEach(copy, { signatures: { keys: [key.publicKey] } })).every((item) => item.ok || what === 'altered'),
              `${what}: every other run verifies, signature and all`,
            );
            const check = await checkDigest(await copy.runs(), head.digest);
            assert.equal(check.ok, false, what);
            assert.match(check.detail, /deleted, altered or inserted/);
          });
        }
      });
    });

    it('covers only the sealed prefix, so a run sealed after the digest was taken does not break it', async () => {
      const key = keyPair('key.pub');
      await withLedger(backend.open, async ({ ledger }) => {
        await sealedRun(ledger, { at: 1_000, signer: key.signer });
        // A run still going: started, not sealed.
        await ledger.append({ runId: 'running', seq: 0, type: 'run.started', at: 2_000, data: { mission: { id: 'm' } } });
        await sealedRun(ledger, { at: 3_000, signer: key.signer });
        const head = await ledgerDigest(await ledger.runs());
        assert.deepEqual([head.count, head.total, head.firstUnsealed], [1, 3, 'running']);
        await ledger.append({
          runId: 'running',
          seq: 1,
          type: 'run.sealed',
          at: 2_500,
          data: { outcome: 'failed_with_evidence', verification: 'unverified', stopReason: 'aborted' },
        });
        assert.equal((await checkDigest(await ledger.runs(), head.digest)).ok, true);
        assert.equal((await ledgerDigest(await ledger.runs())).count, 3);
      });
    });

    it('verifies runs sealed before and after a key rotation with both public keys, and names the unknown key with one', async () => {
      const [first, second] = [keyPair('first.pub'), keyPair('second.pub')];
      await withLedger(backend.open, async ({ ledger }) => {
        const unsigned = await sealedRun(ledger, { at: 500 });
        const old = [
          await sealedRun(ledger, { at: 1_000, signer: first.signer }),
          await sealedRun(ledger, { at: 2_000, signer: first.signer }),
        ];
        const fresh = await sealedRun(ledger, { at: 3_000, signer: second.signer });

        const both = await verifyEach(ledger, { signatures: { keys: [first.publicKey, second.publicKey] } });
        assert.ok(both.every((item) => item.ok));
        assert.deepEqual(
          both.map((item) => [item.runId, item.signature?.status, item.signature?.source]),
          [
            [unsigned.runId, 'unsigned', undefined],
            [old[0]?.runId, 'valid', 'first.pub'],
            [old[1]?.runId, 'valid', 'first.pub'],
            [fresh.runId, 'valid', 'second.pub'],
          ],
        );

        const onlySecond = await verifyEach(ledger, { signatures: { keys: [second.publicKey] } });
        assert.deepEqual(
          onlySecond.filter((item) => !item.ok).map((item) => [item.runId, item.signature?.status, item.signature?.keyId]),
          old.map((run) => [run.runId, 'unknown_key', first.publicKey.keyId]),
        );
        assert.match(
          onlySecond[1]?.signatureProblem ?? '',
          new RegExp(`signed by key ${first.publicKey.keyId}, which is not one of the 1 public key`),
        );

        // Keys found locally rather than given: other keys are reported, not failed — unless signatures are required.
        assert.ok((await verifyEach(ledger, { signatures: { keys: [second.publicKey], allowOtherKeys: true } })).every((item) => item.ok));
        const required = await verifyEach(ledger, { signatures: { keys: [first.publicKey, second.publicKey], require: true } });
        assert.deepEqual(
          required.filter((item) => !item.ok).map((item) => [item.runId, item.signatureProblem]),
          [[unsigned.runId, 'the seal is not signed (signatures are required)']],
        );
      });
    });

    it('signs the seal recovery writes for a crashed run with the recovering key', async () => {
      const [runner, recoverer] = [keyPair('runner.pub'), keyPair('recoverer.pub')];
      await withLedger(backend.open, async ({ ledger }) => {
        // The run's process dies after its third record: its seal is never written.
        const dying = dyingAfter(ledger, 3);
        const mission = defineMission({ id: 'library', goal: 'g', budgets: { maxAttempts: 5 } });
        await assert.rejects(
          runMission({ mission, ledger: dying, signer: runner.signer, proposer: functionProposer(({ attempt }) => ({ value: attempt })) }),
          /process killed/,
        );
        const [recovery] = await recoverRuns({ ledger, signer: recoverer.signer });
        assert.equal(recovery?.action, 'sealed_crashed');
        const [result] = await verifyEach(ledger, { signatures: { keys: [runner.publicKey, recoverer.publicKey] } });
        assert.deepEqual([result?.ok, result?.signature?.status, result?.signature?.source], [true, 'valid', 'recoverer.pub']);
      });
    });
  });
}
