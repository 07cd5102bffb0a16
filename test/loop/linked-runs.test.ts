import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { finding, type Check } from '../../src/core/check.js';
import { LinkError } from '../../src/errors/link-error.js';
import { SamePlanError } from '../../src/errors/same-plan-error.js';
import type { Ledger } from '../../src/ledger/ledger.js';
import { verifyLedger } from '../../src/ledger/verify.js';
import { resumeRun } from '../../src/loop/resume.js';
import { runMission, type RunMissionOptions } from '../../src/loop/run-mission.js';
import { runPlanOf } from '../../src/run/run-plan.js';
import { defineMission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { backends, withLedger } from '../ledger/backends.js';
import { dyingAfter, wrapLedger } from '../helpers/ledgers.js';
import { dataOf } from '../helpers/records.js';

/** A demand check: the candidate's value must be `ok`. */
const valueIsOk: Check = {
  name: 'value',
  stage: 'fast',
  tier: 'demand',
  required: true,
  async run({ candidate }) {
    const check = { name: 'value', stage: 'fast' as const, tier: 'demand' as const };
    return candidate.value === 'ok'
      ? [finding(check, 'pass', [], 'ok')]
      : [finding(check, 'fail', [`value.is:${String(candidate.value)}`], 'not ok')];
  },
};

/** Blocks at the human gate after two failed rounds, or oscillates A → B → A. */
const gated = defineMission({
  id: 'gated',
  goal: 'say ok',
  budgets: { maxAttempts: 6 },
  stopPolicy: { guards: [{ humanGate: { n: 2 } }] },
});
const oscillatingSpec = { id: 'osc', goal: 'say ok', budgets: { maxAttempts: 6 }, stopPolicy: { guards: [{ oscillation: {} }] } };
const oscillating = defineMission(oscillatingSpec);

/** A proposer that never gets there (the same plan every time: same name). */
const stuck = functionProposer(({ attempt }) => ({ value: attempt % 2 === 0 ? 'B' : 'A' }), { name: 'weak' });
/** A changed plan: another proposer (by name) that answers right. */
const stronger = functionProposer(() => ({ value: 'ok' }), { name: 'strong' });

const run = (ledger: Ledger, options: Omit<RunMissionOptions, 'ledger' | 'checks'>) =>
  runMission({ ledger, checks: [valueIsOk], ...options });

/** Every run's id and record count, to show that a refusal recorded nothing and a link appended nothing to the old run. */
async function census(ledger: Ledger): Promise<string[]> {
  return (await ledger.runs()).map((row) => `${row.runId}:${row.recordCount}:${row.lastHash}`);
}

for (const backend of backends) {
  describe(`Linked runs and plans (${backend.name} ledger)`, () => {
    const open = () => backend.open();

    it('a linked run after a human-gate block: records the link and the note, leaves the old run as it was', () =>
      withLedger(open, async ({ ledger }) => {
        const blocked = await run(ledger, { mission: gated, proposer: stuck });
        assert.deepEqual([blocked.outcome, blocked.stopReason], ['blocked', 'human_gate']);
        const before = await ledger.stored(blocked.runId);

        const linked = await run(ledger, { mission: gated, proposer: stronger, resolves: blocked.runId, note: 'a stronger proposer' });
        assert.deepEqual([linked.outcome, linked.stopReason], ['complete', 'demand_passed']);

        assert.deepEqual(await ledger.stored(blocked.runId), before, 'the resolved run is never appended to');
        const started = dataOf(await ledger.records(linked.runId), 'run.started');
        const plan = runPlanOf(gated, stronger);
        assert.deepEqual(started.plan, { hash: plan.hash, proposer: { kind: 'function', name: 'strong' } });
        assert.deepEqual(started.resolves, {
          runId: blocked.runId,
          outcome: 'blocked',
          stopReason: 'human_gate',
          planHash: runPlanOf(gated, stuck).hash,
          note: 'a stronger proposer',
        });
        assert.deepEqual(
          (await ledger.runs({ resolves: blocked.runId })).map((row) => row.runId),
          [linked.runId],
        );
        assert.equal((await ledger.runs({ runId: linked.runId }))[0]?.planHash, plan.hash);
        assert.ok((await verifyLedger(ledger)).ok);
      }));

    it('a same-plan rerun refused and a changed-plan linked run accepted', () =>
      withLedger(open, async ({ ledger }) => {
        const first = await run(ledger, { mission: oscillating, proposer: stuck });
        assert.equal(first.stopReason, 'oscillation');
        const before = await census(ledger);

        const refused = await run(ledger, { mission: oscillating, proposer: stuck }).catch((error: unknown) => error);
        assert.ok(refused instanceof SamePlanError, String(refused));
        assert.equal(refused.code, 'run.same_plan');
        assert.equal(refused.runId, first.runId);
        assert.equal(refused.stopReason, 'oscillation');
        assert.match(refused.message, new RegExp(`--resolves ${first.runId} with a changed plan`));
        assert.match(refused.message, /--force-same-plan/);
        // A linked run must change the plan too.
        await assert.rejects(run(ledger, { mission: oscillating, proposer: stuck, resolves: first.runId }), SamePlanError);
        assert.deepEqual(await census(ledger), before, 'a refusal records nothing');

        const linked = await run(ledger, { mission: oscillating, proposer: stronger, resolves: first.runId });
        assert.equal(linked.outcome, 'complete');
        assert.equal(dataOf(await ledger.records(linked.runId), 'run.started').samePlanForced, undefined);
      }));

    it('a plan that repeated its output is refused like any other thrash stop', () =>
      withLedger(open, async ({ ledger }) => {
        const repeating = defineMission({
          id: 'repeat',
          goal: 'say ok',
          budgets: { maxAttempts: 6 },
          stopPolicy: { guards: [{ repeatedOutput: { window: 3, repeats: 2 } }] },
        });
        const same = functionProposer(() => ({ value: 'A' }), { name: 'same' });
        const first = await run(ledger, { mission: repeating, proposer: same });
        assert.equal(first.stopReason, 'repeated_output');
        await assert.rejects(run(ledger, { mission: repeating, proposer: same }), (error: unknown) => {
          assert.ok(error instanceof SamePlanError);
          assert.deepEqual([error.runId, error.stopReason], [first.runId, 'repeated_output']);
          return true;
        });
      }));

    it('--force-same-plan reruns the plan and records which run it overrode', () =>
      withLedger(open, async ({ ledger }) => {
        const first = await run(ledger, { mission: oscillating, proposer: stuck });
        const forced = await run(ledger, { mission: oscillating, proposer: stuck, forceSamePlan: true });
        assert.equal(forced.stopReason, 'oscillation');
        assert.deepEqual(dataOf(await ledger.records(forced.runId), 'run.started').samePlanForced, {
          runId: first.runId,
          stopReason: 'oscillation',
        });
        // The newest run of the plan is the forced one: it thrashed too, so the plan stays refused.
        await assert.rejects(run(ledger, { mission: oscillating, proposer: stuck }), (error: unknown) => {
          assert.ok(error instanceof SamePlanError);
          assert.equal(error.runId, forced.runId);
          return true;
        });
      }));

    it('refuses nothing after other stops, for other plans, or on other missions', () =>
      withLedger(open, async ({ ledger }) => {
        const capped = defineMission({ id: 'capped', goal: 'say ok', budgets: { maxAttempts: 2 }, stopPolicy: { guards: [] } });
        assert.equal((await run(ledger, { mission: capped, proposer: stuck })).stopReason, 'budget_attempts');
        assert.equal((await run(ledger, { mission: capped, proposer: stuck })).stopReason, 'budget_attempts');

        await run(ledger, { mission: oscillating, proposer: stuck });
        const otherPlan = functionProposer(({ attempt }) => ({ value: attempt % 2 === 0 ? 'B' : 'A' }), { name: 'weak-2' });
        assert.equal((await run(ledger, { mission: oscillating, proposer: otherPlan })).stopReason, 'oscillation');
        const renamed = defineMission({ ...oscillatingSpec, id: 'osc-2' });
        assert.equal((await run(ledger, { mission: renamed, proposer: stuck })).stopReason, 'oscillation');
        // A changed mission is a changed plan.
        const wider = defineMission({ ...oscillatingSpec, budgets: { maxAttempts: 7 } });
        assert.notEqual(runPlanOf(wider, stuck).hash, runPlanOf(oscillating, stuck).hash);
        assert.equal((await run(ledger, { mission: wider, proposer: stuck })).stopReason, 'oscillation');
      }));

    it('refuses a link to a run that is unknown, unsealed, complete or of another mission, before recording anything', () =>
      withLedger(open, async ({ ledger }) => {
        const complete = await run(ledger, { mission: gated, proposer: stronger });
        const other = await run(ledger, { mission: oscillating, proposer: stuck });
        await assert.rejects(
          runMission({ mission: gated, proposer: stuck, checks: [valueIsOk], ledger: dyingAfter(ledger, 2) }),
          /process killed/,
        );
        const [unsealed] = await ledger.runs({ unsealed: true });
        assert.ok(unsealed);
        const before = await census(ledger);
        const problem = async (resolves: string): Promise<string> => {
          const error = await run(ledger, { mission: gated, proposer: stronger, resolves }).catch((caught: unknown) => caught);
          assert.ok(error instanceof LinkError, String(error));
          return `${error.code}: ${error.message}`;
        };
        assert.match(await problem('nobody'), /^run\.link_unknown_run: cannot resolve run nobody: it is not in this ledger/);
        assert.match(await problem(unsealed.runId), /^run\.link_not_sealed: /);
        assert.match(await problem(complete.runId), /^run\.link_not_resolvable: .*sealed complete/);
        assert.match(await problem(other.runId), /^run\.link_other_mission: .*mission osc, not gated/);
        await assert.rejects(run(ledger, { mission: gated, proposer: stronger, note: 'why' }), /Expected resolves with note/);
        assert.deepEqual(await census(ledger), before);
      }));

    it('a linked run that crashed resumes with its link, without being refused', () =>
      withLedger(open, async ({ ledger }) => {
        const blocked = await run(ledger, { mission: gated, proposer: stuck });
        // run.started, baseline, decision, attempt 1: the process dies writing its decision.
        await assert.rejects(
          runMission({ mission: gated, proposer: stronger, checks: [valueIsOk], ledger: dyingAfter(ledger, 4), resolves: blocked.runId }),
          /process killed/,
        );
        const [crashed] = await ledger.runs({ unsealed: true });
        assert.equal(crashed?.resolves, blocked.runId);
        const resumed = await resumeRun({ ledger, runId: crashed?.runId as string, proposer: stronger, checks: [valueIsOk] });
        assert.equal(resumed.outcome, 'complete');
        const records = await ledger.records(crashed?.runId as string);
        assert.equal(dataOf(records, 'run.started').resolves?.runId, blocked.runId);
        assert.deepEqual(
          records.map((record) => record.type),
          ['run.started', 'baseline', 'decision', 'attempt', 'run.resumed', 'decision', 'run.sealed'],
        );
        assert.ok((await verifyLedger(ledger)).ok);
      }));
  });
}

describe('Plan refusal without the ledger look-up', () => {
  it('falls back to the run list on a ledger without latestSealed', () =>
    withLedger(
      () => (backends[0] as (typeof backends)[0]).open(),
      async ({ ledger: inner }) => {
        const ledger = wrapLedger(inner);
        assert.equal(ledger.latestSealed, undefined);
        await run(ledger, { mission: oscillating, proposer: stuck });
        await assert.rejects(run(ledger, { mission: oscillating, proposer: stuck }), SamePlanError);
        await run(ledger, { mission: oscillating, proposer: stronger });
      },
    ));
});
