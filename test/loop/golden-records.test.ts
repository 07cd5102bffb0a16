import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { readFile, rm, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Judge } from '../../src/judge/judge.js';
import type { RunRecord } from '../../src/ledger/ledger.js';
import { MemoryLedger } from '../../src/ledger/memory/memory-ledger.js';
import { keySigner } from '../../src/ledger/signing-key.js';
import { resumeRun } from '../../src/loop/resume.js';
import { runMission, type RunMissionOptions } from '../../src/loop/run-mission.js';
import { loadMission } from '../../src/mission/load.js';
import { defineMission, missionHash, type Mission } from '../../src/mission/mission.js';
import { functionProposer } from '../../src/proposers/function-proposer.js';
import { dyingAfter } from '../helpers/ledgers.js';
import { tempWorkspace } from '../helpers/workspace.js';

// Characterization of the loop: deterministic runs (fixed clock and ids) whose full record streams are
// compared with golden files captured before the loop was restructured. Only timing, the owner's process,
// paths of this checkout and what hashes them are masked. REDLINE_GOLDEN=write rewrites the files.
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const GOLDEN = path.join(ROOT, 'test/fixtures/loop-records');
// `hashed` counts the files a reset had to hash because their times changed, `scanned` the paths it looked
// at, which include those stamped in the clock tick the copy was last settled in: both depend on the clock.
// `pidNamespace` depends on the machine, as the owner does.
const TIMING = new Set(['at', 'durationMs', 'elapsedMs', 'snapshotMs', 'resetMs', 'hashed', 'scanned', 'pid', 'host', 'pidNamespace']);
const NOW = 1_767_225_600_000;
/** The fixed clock and the run id `golden-<name>`. */
const fixed = (name: string) => ({ now: () => NOW, generateId: () => `golden-${name}` });

const dirs: string[] = [];
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

async function tempDir(files: Record<string, string> = {}): Promise<string> {
  const dir = await tempWorkspace(files);
  dirs.push(dir);
  return dir;
}

/** A record stream with timing, the owner, this checkout's paths and the hashes over them masked. */
function masked(records: readonly RunRecord[], paths: Record<string, string>): unknown {
  const replace = (text: string): string => Object.entries(paths).reduce((result, [from, to]) => result.split(from).join(to), text);
  const walk = (value: unknown, key?: string): unknown => {
    if (key !== undefined && TIMING.has(key)) return '<timing>';
    if (typeof value === 'string') return replace(value);
    if (Array.isArray(value)) return value.map((item) => walk(item));
    if (typeof value === 'object' && value !== null)
      return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, walk(item, name)]));
    return value;
  };
  return records.map((record) => {
    const data = record.data as Record<string, unknown>;
    // The mission hash (and the plan's, over it) covers the mission's absolute paths: checked here, masked in the file.
    if (record.type === 'run.started') assert.equal(data.missionHash, missionHash(data.mission as Mission));
    const rest = { ...data };
    if ('missionHash' in rest) rest.missionHash = '<mission hash>';
    if (typeof rest.plan === 'object' && rest.plan !== null) rest.plan = { ...rest.plan, hash: '<plan hash>' };
    if ('signature' in rest) rest.signature = '<signature>';
    return { type: record.type, seq: record.seq, runId: record.runId, data: walk(rest) };
  });
}

async function matchesGolden(name: string, records: readonly RunRecord[], paths: Record<string, string>): Promise<void> {
  // The examples' base is under ROOT; a mission defined in code takes the working directory as its base.
  const actual = `${JSON.stringify(masked(records, { ...paths, [ROOT]: '<root>', [process.cwd()]: '<root>' }), null, 2)}\n`;
  const file = path.join(GOLDEN, `${name}.json`);
  if (process.env.REDLINE_GOLDEN === 'write') {
    await mkdir(GOLDEN, { recursive: true });
    await writeFile(file, actual);
  }
  assert.equal(actual, await readFile(file, 'utf8'), `${name}: the record stream changed`);
}

/** Runs `options` on a fresh ledger with the fixed clock and ids; returns its records. */
async function recorded(
  name: string,
  options: Omit<RunMissionOptions, 'ledger' | '_internal' | 'scratchDir'>,
  scratch: string,
): Promise<readonly RunRecord[]> {
  const ledger = new MemoryLedger();
  const result = await runMission({ ...options, ledger, scratchDir: scratch, _internal: fixed(name) });
  return ledger.records(result.runId);
}

const EXAMPLES = [
  'already-passing',
  'budget-cutoff',
  'extraction-sampled',
  'fizzbuzz',
  'group-by-first-letter',
  'is-even',
  'oscillation',
  'scope-violation',
  'summary-semantic-only',
];

// The scenarios are independent (own ledger, scratch directory and run id); they run one after another, so
// that a loaded machine (the suite's start) does not stretch any check past its timeout.
describe('golden record streams', () => {
  for (const example of EXAMPLES)
    it(`example ${example}`, async () => {
      const scratch = await tempDir();
      const mission = await loadMission(path.join(ROOT, 'examples', example, 'mission.yaml'));
      await matchesGolden(`example-${example}`, await recorded(example, { mission }, scratch), { [scratch]: '<scratch>' });
    });

  it('a resumed run after a crash at each kind of record', async () => {
    const scratch = await tempDir();
    const mission = await loadMission(path.join(ROOT, 'examples/is-even/mission.yaml'));
    const streams: unknown[] = [];
    // After run.started the baseline is left to do, after the baseline's decision an attempt, after an attempt its decision.
    for (const limit of [1, 3, 4]) {
      const ledger = new MemoryLedger();
      const _internal = fixed(`resumed-${limit}`);
      await assert.rejects(runMission({ mission, ledger: dyingAfter(ledger, limit), scratchDir: scratch, _internal }), /process killed/);
      await resumeRun({ ledger, runId: `golden-resumed-${limit}`, scratchDir: scratch, _internal });
      streams.push(...(await ledger.records(`golden-resumed-${limit}`)));
    }
    await matchesGolden('resumed', streams as RunRecord[], { [scratch]: '<scratch>' });
  });

  it('a no-change attempt, then a change, signed', async () => {
    const scratch = await tempDir();
    const dir = await tempDir({ 'a.txt': 'old\n' });
    const answers = [{ files: { 'a.txt': 'old\n' } }, { files: { 'a.txt': 'new\n' } }];
    let call = 0;
    const { privateKey } = generateKeyPairSync('ed25519');
    const records = await recorded(
      'no-change',
      {
        mission: defineMission({
          id: 'no-change',
          goal: 'write new',
          workspace: dir,
          budgets: { maxAttempts: 3 },
          checks: [{ name: 'new', kind: 'expected-output', command: 'cat a.txt', expected: 'new' }],
        }),
        proposer: functionProposer(() => answers[Math.min(call++, 1)] as { files: Record<string, string> }, { name: 'same-then-new' }),
        signer: keySigner(privateKey),
      },
      scratch,
    );
    await matchesGolden('no-change', records, { [scratch]: '<scratch>', [dir]: '<workspace>' });
  });

  it('a judge that throws', async () => {
    const scratch = await tempDir();
    const judge: Judge = {
      name: 'throwing',
      decide: () => {
        throw new Error('judge broke');
      },
    };
    const records = await recorded(
      'judge-error',
      {
        mission: defineMission({ id: 'judge-error', goal: 'g', budgets: { maxAttempts: 2 } }),
        proposer: functionProposer(() => ({ files: { 'a.txt': 'x' } })),
        judge,
      },
      scratch,
    );
    await matchesGolden('judge-error', records, { [scratch]: '<scratch>' });
  });

  it('a runtime error after the first attempt is recorded', async () => {
    const scratch = await tempDir();
    let thrown = false;
    const records = await recorded(
      'runtime-error',
      {
        mission: defineMission({ id: 'runtime-error', goal: 'g', budgets: { maxAttempts: 2 } }),
        proposer: functionProposer(() => ({ files: { 'a.txt': 'x' } })),
        onRecord: (record) => {
          if (record.type !== 'attempt' || thrown) return;
          thrown = true;
          throw new Error('display broke');
        },
      },
      scratch,
    );
    await matchesGolden('runtime-error', records, { [scratch]: '<scratch>' });
  });
});

describe('golden record streams, timed', () => {
  it('a wall-clock stop while the proposer runs', async () => {
    // The budget is real time from the run's start: long enough that the first attempt has begun when it
    // runs out on a loaded machine. Alone, not beside the other scenarios: their work would delay this run's start.
    const scratch = await tempDir();
    const records = await recorded(
      'wall-clock',
      {
        mission: defineMission({ id: 'never', goal: 'g', budgets: { maxAttempts: 3, maxWallClock: 6000 } }),
        proposer: functionProposer(() => new Promise(() => {})),
      },
      scratch,
    );
    await matchesGolden('wall-clock', records, { [scratch]: '<scratch>' });
  });
});
