import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { headCommand, showCommand, verifyCommand } from '../../src/cli/ledger-command.js';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import { importJsonl } from '../../src/ledger/export.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { exportAll, type ExportedRun } from './records.js';
import { forge, keyPair, sealedRun } from './signed-runs.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/redline.js');

/** An `Output` that keeps what a handler printed: stdout lines and stderr lines. */
function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => void out.push(line), progress: (line) => void err.push(line) };
}

/** A mission that completes at attempt 2: a replayed agent, an expected-output red line. */
async function missionDir(): Promise<string> {
  return tempWorkspace({
    'ws/answer.txt': 'zero\n',
    'attempts.json': JSON.stringify([{ files: { 'answer.txt': 'no\n' } }, { files: { 'answer.txt': 'ok\n' } }]),
    'mission.json': JSON.stringify({
      id: 'signed-cli',
      goal: 'answer ok',
      workspace: 'ws',
      budgets: { maxAttempts: 3 },
      checks: [{ name: 'answer', kind: 'expected-output', command: 'cat answer.txt', expected: 'ok' }],
      proposer: { kind: 'replay', file: 'attempts.json' },
    }),
  });
}

async function withSqlite<T>(file: string, work: (ledger: Ledger) => Promise<T>): Promise<T> {
  const ledger = await SqliteLedger.open({ database: file, synchronous: 'off' });
  try {
    return await work(ledger);
  } finally {
    await ledger.close();
  }
}

async function importRuns(file: string, runs: readonly ExportedRun[]): Promise<void> {
  await withSqlite(file, (ledger) =>
    importJsonl(
      ledger,
      runs.flatMap(({ run, records }) => [
        JSON.stringify({ kind: 'run', ...run }),
        ...records.map((record) => JSON.stringify({ kind: 'record', ...record })),
      ]),
    ),
  );
}

/** Two runs of the mission through `redline run` (in process), in a ledger at `<dir>/.redline/redline.db`. */
async function twoRuns(): Promise<{ dir: string; db: string; runIds: string[] }> {
  const dir = await missionDir();
  const db = path.join(dir, '.redline', 'redline.db');
  const runIds: string[] = [];
  for (let index = 0; index < 2; index += 1) {
    const output = capture();
    assert.equal(await runCommand(path.join(dir, 'mission.json'), { json: true, ledger: db }, output), 0, output.err.join('\n'));
    runIds.push((JSON.parse(output.out.at(-1) as string) as { runId: string }).runId);
  }
  return { dir, db, runIds };
}

/** Two runs the first two cases only read (they write copies and keys beside the ledger, never into it): recorded once. */
let shared: ReturnType<typeof twoRuns> | undefined;
const sharedRuns = (): ReturnType<typeof twoRuns> => (shared ??= twoRuns());

describe('redline ledger verify, head and show with signed seals', () => {
  it('signs with a key it creates beside the ledger; verify and show use it, and catch a forged-and-rehashed copy and a deleted run', async () => {
    const { dir, db, runIds } = await sharedRuns();
    assert.equal((await stat(path.join(dir, '.redline', 'signing-key.pem'))).mode & 0o777, 0o600);

    const verified = capture();
    assert.equal(await verifyCommand({ ledger: db }, verified), 0);
    assert.match(
      verified.out.join('\n'),
      /^2 of 2 runs verify \(\d+ records\) in \S+; seal signatures: 2 valid, 0 invalid, 0 unsigned — checked with the local key\(s\) \S+signing-key\.pub \(key [0-9a-f]{16}\)$/,
    );
    const head = capture();
    assert.equal(await headCommand({ ledger: db }, head), 0);
    const digest = head.out[0] as string;
    assert.match(digest, /^2:0:[0-9a-f]{64}$/);
    assert.match(head.err[0] ?? '', /^covers the first 2 of 2 run\(s\) in .*, in start order, and the 0 review journal entries$/);
    const shown = capture();
    assert.equal(await showCommand(runIds[0] as string, { ledger: db }, shown), 0);
    assert.match(shown.out[0] ?? '', /^run \S+ — mission signed-cli/, 'no warning for a run that verifies');

    // A copy beside it (so the same local key applies): the first run's failing attempt rewritten as passing, every hash recomputed.
    const exported = await withSqlite(db, exportAll);
    const forgedDb = path.join(dir, '.redline', 'forged.db');
    await importRuns(
      forgedDb,
      exported.map((run) => (run.run.runId === runIds[0] ? forge(run, 1, (data) => ({ ...data, findings: [] })) : run)),
    );
    const forged = capture();
    assert.equal(await verifyCommand({ ledger: forgedDb }, forged), 1);
    assert.match(
      forged.out[0] ?? '',
      new RegExp(
        `^BROKEN run ${runIds[0]}: seal signature — the seal signature does not verify with key [0-9a-f]{16}: the run was changed after it was signed$`,
      ),
    );
    assert.match(forged.out[1] ?? '', /^1 of 2 runs verify/);
    const warned = capture();
    assert.equal(await showCommand(runIds[0] as string, { ledger: forgedDb }, warned), 0);
    assert.match(
      warned.out[0] ?? '',
      new RegExp(`^WARNING: run ${runIds[0]} does not verify \\(seal signature — .*\\); what follows may have been altered$`),
    );
    const warnedJson = capture();
    assert.equal(await showCommand(runIds[0] as string, { ledger: forgedDb, json: true }, warnedJson), 0);
    assert.match(warnedJson.err[0] ?? '', /^WARNING: run/);
    assert.ok(
      warnedJson.out.every((line) => JSON.parse(line) !== undefined),
      'with --json stdout stays JSON lines',
    );

    // A copy without the first run: every run in it verifies, the digest taken before does not.
    const deletedDb = path.join(dir, '.redline', 'deleted.db');
    await importRuns(deletedDb, exported.slice(1));
    const against = capture();
    assert.equal(await verifyCommand({ ledger: deletedDb, against: digest }, against), 1);
    assert.match(
      against.out.join('\n'),
      /^1 of 1 runs verify [^\n]*; seal signatures: 1 valid[^\n]*\nBROKEN ledger head 2:0:[0-9a-f]{64}: the digest covers 2 run\(s\), the ledger holds 1: runs were deleted$/,
    );
    const unchanged = capture();
    assert.equal(await verifyCommand({ ledger: db, against: digest, json: true }, unchanged), 0);
    assert.deepEqual(JSON.parse(unchanged.out.at(-1) as string), {
      against: digest,
      ok: true,
      count: 2,
      total: 2,
      journal: 0,
      detail: 'the first 2 run(s) and 0 review journal entries match the digest; 0 run(s) and 0 journal entries were added since',
    });
  });

  it('fails runs signed by a key not given with --public-key, requires signatures on demand, and refuses bad keys and digests', async () => {
    const { dir, db } = await sharedRuns();
    const other = keyPair('other');
    const otherPub = path.join(dir, 'other.pub');
    await writeFile(otherPub, other.publicKey.key.export({ type: 'spki', format: 'pem' }));
    const wrongKey = capture();
    assert.equal(await verifyCommand({ ledger: db, publicKey: [otherPub] }, wrongKey), 1);
    assert.match(
      wrongKey.out[0] ?? '',
      /^BROKEN run \S+: seal signature — the seal is signed by key [0-9a-f]{16}, which is not one of the 1 public key\(s\) given$/,
    );
    const both = capture();
    assert.equal(await verifyCommand({ ledger: db, publicKey: [otherPub, path.join(dir, '.redline', 'signing-key.pub')] }, both), 0);

    // A ledger elsewhere, with a run sealed without a signature (as before signed seals): unsigned is not broken, unless required.
    const elsewhere = await tempWorkspace({});
    const oldDb = path.join(elsewhere, 'old.db');
    await withSqlite(oldDb, (ledger) => sealedRun(ledger, { at: 1_000 }));
    const unsigned = capture();
    assert.equal(await verifyCommand({ ledger: oldDb }, unsigned), 0);
    assert.match(
      unsigned.out[0] ?? '',
      /^1 of 1 runs verify \(\d+ records\) in \S+; seal signatures: 0 valid, 0 invalid, 1 unsigned — checked with no public key given and none in /,
    );
    await assert.rejects(
      verifyCommand({ ledger: oldDb, requireSignatures: true }, capture()),
      /^TypeError: Expected --public-key FILE with --require-signatures, got none/,
    );
    const required = capture();
    assert.equal(await verifyCommand({ ledger: oldDb, requireSignatures: true, publicKey: [otherPub] }, required), 1);
    assert.match(required.out[0] ?? '', /seal signature — the seal is not signed \(signatures are required\)$/);

    await assert.rejects(
      verifyCommand({ ledger: db, against: '2:abc' }, capture()),
      /^TypeError: Expected a ledger digest COUNT:JOURNAL:SHA256 \(as `redline ledger head` prints it\), got "2:abc"$/,
    );
    await assert.rejects(
      verifyCommand({ ledger: db, publicKey: [path.join(dir, 'mission.json')] }, capture()),
      /^TypeError: Expected an Ed25519 public key \(PEM\) in .*mission\.json, got something else/,
    );
  });

  it('with --public-key, fails a seal whose signature was stripped and its hashes recomputed, unless --allow-unsigned', async () => {
    const key = keyPair('key');
    const dir = await tempWorkspace({});
    try {
      const pub = path.join(dir, 'k.pub');
      await writeFile(pub, key.publicKey.key.export({ type: 'spki', format: 'pem' }));
      const db = path.join(dir, 'signed.db');
      const exported = await withSqlite(db, async (ledger) => {
        for (const at of [1_000, 2_000, 3_000]) await sealedRun(ledger, { at, signer: key.signer });
        return exportAll(ledger);
      });
      // A copy: the last run's seal rewritten to complete / verified, its signature deleted, every hash recomputed.
      const victim = exported[2] as ExportedRun;
      const sealSeq = (victim.records.at(-1) as { seq: number }).seq;
      const stripped = forge(victim, sealSeq, ({ signature: _signature, ...data }) => ({
        ...data,
        outcome: 'complete',
        verification: 'verified',
        stopReason: 'demand_passed',
      }));
      const forgedDb = path.join(dir, 'forged.db');
      await importRuns(forgedDb, [exported[0] as ExportedRun, exported[1] as ExportedRun, stripped]);

      const given = capture();
      assert.equal(await verifyCommand({ ledger: forgedDb, publicKey: [pub] }, given), 1);
      assert.equal(given.out[0], `BROKEN run ${victim.run.runId}: seal signature — the seal is not signed (signatures are required)`);
      assert.match(given.out[1] ?? '', /^2 of 3 runs verify .*; seal signatures: 2 valid, 0 invalid, 1 unsigned — checked with /);
      const shown = capture();
      assert.equal(await showCommand(victim.run.runId, { ledger: forgedDb, publicKey: [pub] }, shown), 0);
      assert.match(shown.out[0] ?? '', /^WARNING: run \S+ does not verify \(seal signature — the seal is not signed/);

      // An older ledger, sealed before signing: --allow-unsigned reports the unsigned seal (and proves nothing of it).
      const allowed = capture();
      assert.equal(await verifyCommand({ ledger: forgedDb, publicKey: [pub], allowUnsigned: true }, allowed), 0);
      assert.match(allowed.out[0] ?? '', /^3 of 3 runs verify .*; seal signatures: 2 valid, 0 invalid, 1 unsigned — checked with /);
      await assert.rejects(
        verifyCommand({ ledger: forgedDb, publicKey: [pub], allowUnsigned: true, requireSignatures: true }, capture()),
        /^TypeError: Expected --require-signatures or --allow-unsigned, got both$/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('escapes a run id with control characters in the warning of show', async () => {
    const key = keyPair('key');
    const dir = await tempWorkspace({});
    const db = path.join(dir, 'l.db');
    const runId = 'evil\x1b]0;title\x07\x1b[2J';
    const [exported] = await withSqlite(db, async (ledger) => {
      await sealedRun(ledger, { at: 1_000, signer: key.signer, runId });
      return exportAll(ledger);
    });
    await importRuns(path.join(dir, 'forged.db'), [forge(exported as ExportedRun, 1, (data) => ({ ...data, findings: [] }))]);
    // No key given and none local: the chain verifies and the signature cannot be checked, so no warning; with the key, a warning.
    const shown = capture();
    await showCommand(runId, { ledger: path.join(dir, 'forged.db') }, shown);
    assert.match(shown.out[0] ?? '', /^run evil\\x1b/);
    const keyFile = path.join(dir, 'key.pub');
    await writeFile(keyFile, key.publicKey.key.export({ type: 'spki', format: 'pem' }));
    const warned = capture();
    await showCommand(runId, { ledger: path.join(dir, 'forged.db'), publicKey: [keyFile] }, warned);
    assert.match(warned.out[0] ?? '', /^WARNING: run evil\\x1b\]0;title\\x07\\x1b\[2J does not verify/);
    const raw = [...shown.out, ...warned.out].filter((line) =>
      [...line].some((char) => (char.codePointAt(0) as number) < 0x20 || char === '\x7f'),
    );
    assert.deepEqual(raw, [], 'no raw control character reaches the terminal');
  });

  it('spawned: ledger head prints only the digest on stdout; verify --against exits 0, 1 once a run is deleted, 2 on a bad digest, without a stack', async () => {
    const { db, runIds } = await twoRuns();
    const redline = (...args: string[]) =>
      spawnSync(process.execPath, [BIN, ...args, '--ledger', db], { encoding: 'utf8', timeout: 60_000 });
    const head = redline('ledger', 'head');
    assert.equal(head.status, 0, head.stderr);
    const digest = head.stdout.trim();
    assert.match(digest, /^2:0:[0-9a-f]{64}$/);
    assert.equal(redline('ledger', 'verify', '--against', digest).status, 0);

    // Someone with write access to the file deletes the first run, row and records, past the append-only triggers.
    const raw = new Database(db);
    for (const { name } of raw
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'trigger' AND name GLOB '*refuse*'")
      .all())
      raw.exec(`DROP TRIGGER "${name}"`);
    raw.prepare('DELETE FROM records WHERE run_id = ?').run(runIds[0]);
    raw.prepare('DELETE FROM runs WHERE run_id = ?').run(runIds[0]);
    raw.close();
    assert.equal(await verifyCommand({ ledger: db }, capture()), 0, 'without the digest the deletion is invisible');
    const caught = redline('ledger', 'verify', '--against', digest);
    assert.equal(caught.status, 1);
    assert.match(caught.stdout, /BROKEN ledger head 2:0:[0-9a-f]{64}: the digest covers 2 run\(s\), the ledger holds 1: runs were deleted/);
    const bad = redline('ledger', 'verify', '--against', 'latest');
    assert.equal(bad.status, 2);
    assert.equal(bad.stderr, 'redline: Expected a ledger digest COUNT:JOURNAL:SHA256 (as `redline ledger head` prints it), got "latest"\n');
  });
});
