import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { showCommand } from '../../src/cli/ledger-command.js';
import { reviewListCommand, reviewShowCommand } from '../../src/cli/review-command.js';
import { runCommand, type Output } from '../../src/cli/run-command.js';
import { clean } from '../../src/cli/terminal-text.js';
import { tempDir } from '../helpers/workspace.js';

// Hostile text — random bytes, control characters and escape sequences — as the goal, the expected
// output, file contents, file names, test names and proposer stderr, through `run`
// (progress and summary, text and --json), `ledger show` and `review list/show`: nothing but a newline
// may reach the terminal as a control character.

const ROOT = path.resolve(import.meta.dirname, '../..');
const BIN = path.join(ROOT, 'bin/redline.js');

const scratch = await tempDir('redline-terminal-');
const previousScratch = process.env.REDLINE_SCRATCH;
process.env.REDLINE_SCRATCH = path.join(scratch, 'runs');
after(async () => {
  if (previousScratch === undefined) delete process.env.REDLINE_SCRATCH;
  else process.env.REDLINE_SCRATCH = previousScratch;
  await rm(scratch, { recursive: true, force: true });
});

const BIDI = [0x200e, 0x200f, 0x2028, 0x2029, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];

/** Code points that act on a terminal or hide text: C0 but newline, DEL, C1, line/paragraph separators and bidi controls. */
function rawControls(text: string): string[] {
  return [...text].filter((char) => {
    const code = char.codePointAt(0) as number;
    return (code < 0x20 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f) || BIDI.includes(code);
  });
}

function assertSafe(where: string, lines: readonly string[]): void {
  for (const line of lines) assert.deepEqual(rawControls(line), [], `${where} printed a raw control character: ${JSON.stringify(line)}`);
}

const control = fc
  .oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0x7f, max: 0x9f }), fc.constantFrom(...BIDI))
  .map((code) => String.fromCodePoint(code));
const sequence = fc.constantFrom(
  '\x1b]0;owned\x07',
  '\x1b[2J',
  '\x1b[31m',
  '\x1b[8m',
  '\x1b[1A\x1b[K',
  '\x9b2J',
  '\x1bP+q\x1b\\',
  '\r',
  '\u202egnp.exe',
  '\x1b]8;;http://x\x07link\x1b]8;;\x07',
);
const hostile = fc
  .array(fc.oneof(control, sequence, fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 3 })), {
    minLength: 1,
    maxLength: 10,
  })
  .map((parts) => parts.join(''));
/** A file name an agent may propose that the path rules accept: no `/`, NUL, `.` or `..`. */
const fileName = hostile.map((text) => `f${text.replace(/[/\0]/g, '_').slice(0, 60)}`);
const bytes = fc.uint8Array({ minLength: 1, maxLength: 24 }).map((array) => Buffer.from(array));

interface Hostile {
  readonly goal: string;
  readonly expected: string;
  readonly output: string;
  readonly file: string;
  readonly testName: string;
  readonly testBytes: Buffer;
  readonly proposerStderr: Buffer;
  readonly json: boolean;
}

const hostileRun: fc.Arbitrary<Hostile> = fc.record({
  goal: hostile,
  expected: hostile,
  output: hostile,
  file: fileName,
  testName: hostile,
  testBytes: bytes,
  proposerStderr: bytes,
  json: fc.boolean(),
});

// The proposer: attempt 1 proposes hostile content, attempt 2 fails with hostile stderr, attempt 3 adds a file with a hostile name.
// Shell builtins where they do, to keep the runs fast: a proposal is one line of JSON.
const PROPOSER = `n=0; [ -f "$1/count" ] && read -r n < "$1/count"; n=$((n + 1)); echo "$n" > "$1/count"
case "$n" in
  1) read -r proposal < "$1/proposal-1.json"; printf '%s' "$proposal" ;;
  2) cat "$1/proposer-stderr" >&2; exit 3 ;;
  *) read -r proposal < "$1/proposal-3.json"; printf '%s' "$proposal" ;;
esac
`;

/** A mission whose goal, checks and proposer emit `text`; the ledger is a SQLite file beside it. */
async function hostileMission(text: Hostile): Promise<{ file: string; ledger: string }> {
  const dir = await mkdtemp(path.join(scratch, 'mission-'));
  const ws = path.join(dir, 'ws');
  await mkdir(path.join(ws, 'src'), { recursive: true });
  await writeFile(path.join(ws, 'src/out.txt'), 'baseline\n');
  await writeFile(path.join(dir, 'proposer.sh'), PROPOSER);
  await writeFile(path.join(dir, 'proposal-1.json'), JSON.stringify({ files: { 'src/out.txt': text.output } }));
  await writeFile(path.join(dir, 'proposal-3.json'), JSON.stringify({ files: { [`src/${text.file}`]: text.output } }));
  await writeFile(path.join(dir, 'proposer-stderr'), text.proposerStderr);
  const tap = Buffer.concat([
    Buffer.from(`TAP version 13\n1..3\nok 1 - fine\nnot ok 2 - ${text.testName}\nnot ok 3 - `),
    text.testBytes,
    Buffer.from('\n'),
  ]);
  await writeFile(path.join(dir, 'report.tap'), tap);
  const file = path.join(dir, 'mission.json');
  await writeFile(
    file,
    JSON.stringify({
      id: 'hostile',
      goal: `fix ${text.goal}`,
      workspace: 'ws',
      scope: ['src/**'],
      budgets: { maxAttempts: 3 },
      stopPolicy: { guards: [] },
      proposer: { kind: 'command', command: ['sh', path.join(dir, 'proposer.sh'), dir] },
      checks: [
        { name: 'tests', kind: 'test-runner', format: 'tap', command: ['cat', path.join(dir, 'report.tap')] },
        { name: 'output', kind: 'expected-output', command: ['cat', 'src/out.txt'], expected: text.expected },
      ],
    }),
  );
  return { file, ledger: path.join(dir, 'redline.db') };
}

function capture(): Output & { out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, print: (line) => out.push(line), progress: (line) => err.push(line) };
}

describe('terminal output of agent and mission text', () => {
  it('never prints a raw control character but newline from run, ledger show, review list/show and the summary', async () => {
    await fc.assert(
      fc.asyncProperty(hostileRun, async (text) => {
        const { file, ledger } = await hostileMission(text);
        const run = capture();
        assert.equal(await runCommand(file, { json: text.json, review: true, ledger }, run), 1);
        assertSafe('run (stdout)', run.out);
        assertSafe('run (stderr)', run.err);
        if (text.json) for (const line of run.out) JSON.parse(line);
        else assert.ok(run.err.includes(`mission hostile: ${clean(`fix ${text.goal}`.split('\n')[0] as string)}`), run.err.join('\n'));

        const listed = capture();
        await reviewListCommand({ json: true, ledger }, listed);
        assertSafe('review list --json', listed.out);
        const entry = JSON.parse(listed.out[0] as string) as { item: { id: string; runId: string; task: string } };
        // Escaped for the terminal, nothing lost: the JSON line holds the goal exactly.
        assert.equal(entry.item.task, `fix ${text.goal}`);
        for (const json of [false, true]) {
          const shown = capture();
          await reviewListCommand({ json, ledger }, shown);
          await reviewShowCommand(entry.item.id, { json, ledger }, shown);
          await showCommand(entry.item.runId, { json, ledger }, shown);
          assertSafe(`review list/show and ledger show${json ? ' --json' : ''}`, [...shown.out, ...shown.err]);
          if (json) for (const line of shown.out) JSON.parse(line);
        }
      }),
      { numRuns: 15, seed: 20_251_110, endOnFailure: true, includeErrorInReport: true },
    );
  });
});

// Every command names its ledger; no colors (test/cli/review-cli.test.ts shows redline's own pass the sink).
const { REDLINE_LEDGER: _ledger, FORCE_COLOR: _color, NO_COLOR: _noColor, ...ENV } = process.env;

/** The built CLI (`npm test` builds first), its stdout and stderr as the bytes a terminal gets. */
function redline(args: readonly string[]): { code: number | null; stdout: Buffer; stderr: Buffer } {
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: scratch, timeout: 60_000, env: ENV });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** No byte below 0x20 but newline, no DEL; decoded, no C1 or bidi control. */
function assertSafeBytes(where: string, bytes: Buffer): void {
  const raw = [...bytes].filter((byte) => (byte < 0x20 && byte !== 0x0a) || byte === 0x7f);
  assert.deepEqual(raw, [], `${where}: raw control byte in ${JSON.stringify(bytes.toString('utf8'))}`);
  assert.deepEqual(rawControls(bytes.toString('utf8')), [], `${where}: raw control character in ${JSON.stringify(bytes.toString('utf8'))}`);
}

const EVIL: Hostile = {
  goal: 'it\x1b]0;owned\x07\x1b[2J\rAPPROVED\u202egnp.exe\x9b1m',
  expected: '42\x1b[8m',
  output: 'const ok = 1;\nconsole.log("\x1b]0;owned\x07");\x1b[1A\n',
  file: 'evil\x1b[31m\u202e.js',
  testName: 'adds\x1b]0;owned\x07\x1b[2J\u2028numbers',
  testBytes: Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0xc2, 0x9b, 0x07, 0x7f, 0xe2, 0x80, 0xae]),
  proposerStderr: Buffer.from('agent crashed\x1b]0;owned\x07\x1b[2J\n'),
  json: false,
};

describe('the built CLI with hostile agent and mission text', () => {
  it('writes no raw control byte to stdout or stderr: run, review show, ledger show, errors quoting input', async () => {
    const { file, ledger } = await hostileMission(EVIL);
    const run = redline(['run', file, '--review', '--ledger', ledger]);
    assert.equal(run.code, 1, run.stderr.toString());
    assert.match(run.stderr.toString(), /mission hostile: fix it\\x1b\]0;owned\\x07/);
    assertSafeBytes('run stdout', run.stdout);
    assertSafeBytes('run stderr', run.stderr);
    const listed = capture();
    await reviewListCommand({ json: true, ledger }, listed);
    const { item } = JSON.parse(listed.out[0] as string) as { item: { id: string; runId: string } };
    for (const args of [
      ['review', 'show', item.id],
      ['ledger', 'show', item.runId],
    ]) {
      const shown = redline([...args, '--ledger', ledger]);
      assert.equal(shown.code, 0, shown.stderr.toString());
      assertSafeBytes(`${args.join(' ')} stdout`, shown.stdout);
      assertSafeBytes(`${args.join(' ')} stderr`, shown.stderr);
    }
    // An error quoting the input (redline's own, and commander's usage error).
    for (const args of [
      ['ledger', 'show', '\x1b]0;owned\x07\x1b[2J', '--ledger', ledger],
      ['run', file, '--\x1b[2Jevil'],
    ]) {
      const refused = redline(args);
      assert.equal(refused.code, 2, refused.stderr.toString());
      assert.match(refused.stderr.toString(), /\\x1b\[2J/);
      assertSafeBytes(`${args.slice(0, 2).join(' ')} error`, refused.stderr);
    }
  });
});
