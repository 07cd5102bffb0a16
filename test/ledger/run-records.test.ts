import assert from 'node:assert/strict';
import { copyFile, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'node:test';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { RecordParseError } from '../../src/errors/record-parse-error.js';
import { chainRecord } from '../../src/ledger/chain.js';
import { importJsonl } from '../../src/ledger/export.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { parseRunRecord } from '../../src/ledger/run-records.js';
import { SqliteLedger } from '../../src/ledger/sqlite/sqlite-ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { GENESIS } from '../../src/core/hash-chain.js';
import { tempWorkspace } from '../helpers/workspace.js';
import { appendAll, story } from './records.js';

const FIXTURES = path.join(import.meta.dirname, '../fixtures/ledger');

/** Every record of every run of a ledger, as stored. */
async function storedRecords(ledger: MemoryLedger | SqliteLedger) {
  return (await Promise.all((await ledger.runs()).map((run) => ledger.stored(run.runId)))).flat();
}

describe('run records read back from storage', () => {
  it('parse for every record of the ledger fixtures (older layouts), typed by their type, the stored JSON kept whole', async () => {
    const exported = new MemoryLedger();
    await importJsonl(exported, (await readFile(path.join(FIXTURES, 'examples.jsonl'), 'utf8')).trim().split('\n'));
    const file = path.join(await tempWorkspace({}), 'v2.db');
    await copyFile(path.join(FIXTURES, 'v2-layout.db'), file);
    const v2 = await SqliteLedger.open({ database: file });
    try {
      const rows = [...(await storedRecords(exported)), ...(await storedRecords(v2))];
      assert.ok(rows.length > 100, `${rows.length} records`);
      const types = new Set<string>();
      for (const row of rows) {
        const record = parseRunRecord(row);
        types.add(record.type);
        // Nothing read is lost or reordered: the record is the stored body's JSON.
        assert.equal(canonicalJson(record), row.body);
        assert.deepEqual(record, JSON.parse(row.body));
      }
      assert.deepEqual([...types].sort(), ['attempt', 'baseline', 'decision', 'run.sealed', 'run.started']);
      const [run] = await exported.runs();
      const records = await exported.records(run?.runId ?? '');
      const sealed = records.at(-1);
      assert.equal(sealed?.type, 'run.sealed');
      if (sealed?.type === 'run.sealed') assert.equal(sealed.data.stopReason, 'demand_passed');
    } finally {
      await v2.close();
    }
  });

  it('that do not parse raise a RecordParseError naming the run, the seq, the type and the field', async () => {
    const ledger = new MemoryLedger();
    await appendAll(ledger, story('fine'));
    const [started, attempt] = story('bad', { sealed: false });
    await appendAll(ledger, [
      started!,
      { ...attempt!, data: { attempt: 1, summary: { attempt: 1, candidateHash: 'h', signature: 5, rejection: '' } } },
    ]);
    await assert.rejects(ledger.records('bad'), (error: unknown) => {
      assert.ok(error instanceof RecordParseError);
      assert.deepEqual(
        [error.code, error.runId, error.seq, error.type, error.path],
        ['record.unparsable', 'bad', 1, 'attempt', 'data.summary.signature'],
      );
      assert.match(error.message, /^run bad: run record 1 \(attempt\) does not parse: data\.summary\.signature: .*expected string/);
      return true;
    });
    // The stored bytes are as written: the chain verifies, and verification names the record as the run's problem.
    const result = await verifyLedger(ledger);
    assert.deepEqual([result.ok, result.runs, result.broken], [false, 2, 1]);
    assert.equal(result.problems[0]?.runId, 'bad');
    assert.equal(result.problems[0]?.firstBad, undefined);
    assert.match(result.problems[0]?.recordProblem ?? '', /^record 1 \(attempt\): data\.summary\.signature: /);
    assert.equal((await ledger.records('fine')).length, 4);
  });

  it('that are not JSON, or of an unknown type, are named too', () => {
    const row = chainRecord(GENESIS, { runId: 'r', seq: 0, type: 'run.started', at: 1, data: { mission: { id: 'm' } } });
    assert.throws(
      () => parseRunRecord({ ...row, body: '{"runId"' }),
      (error: unknown) => error instanceof RecordParseError && error.path === '',
    );
    const odd = chainRecord(GENESIS, { runId: 'r', seq: 0, type: 'run.started', at: 1, data: {} });
    assert.throws(
      () => parseRunRecord({ ...odd, body: odd.body.replace('run.started', 'run.paused') }),
      (error: unknown) => error instanceof RecordParseError && error.path === 'type',
    );
    assert.throws(
      () => parseRunRecord(odd),
      (error: unknown) => error instanceof RecordParseError && error.path === 'data.mission',
    );
  });
});
