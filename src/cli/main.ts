import { Command, CommanderError } from 'commander';
import { RedlineError } from '../errors/redline-error.js';
import { age, fraction, positive, size } from './arguments.js';
import { SIGNING_KEY_ENV } from '../ledger/signing-key.js';
import { addFleetCommands } from './fleet-command.js';
import { addLimitsCommand } from './limits-command.js';
import { addJudgeCommand } from './judge-command.js';
import { addReviewCommand } from './review-command.js';
import type { Output } from './run-command.js';
import { addStudyCommand } from './study-command.js';
import { terminalText } from './terminal-text.js';
import { VERSION } from './version.js';

// Each action imports its command when it runs: `redline --help` or `redline ledger verify` then loads
// neither the loop, the mission schema, the study nor a database driver it does not use.

/** Exit codes: 0 complete/complete_noop (or success), 1 failed/blocked (or a broken chain), 2 usage or input error. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
const CACHE_HELP =
  'cache folder (default: $REDLINE_CACHE, else <$REDLINE_SCRATCH or the temp directory>/redline-cache; REDLINE_CACHE=off turns it off)';
const LEDGER_HELP = 'ledger: a SQLite file or a postgres:// URL (default: $REDLINE_LEDGER, else .redline/redline.db)';
const SIGNING_KEY_DEFAULT = 'signing-key.pem next to a SQLite ledger, or in .redline/ of the working directory for PostgreSQL';

function program(setCode: (code: number) => void, output: Output): Command {
  const cli = new Command('redline')
    .description('Bounded refinement loops for AI agents that stop for the right reason.')
    .version(VERSION)
    // A command's options are its own once its name is given (`review filters --ledger` is the list's,
    // `review filters add … --ledger` the add's): commander needs every ancestor positional for that.
    .enablePositionalOptions()
    .showHelpAfterError()
    .exitOverride()
    // Commander ends what it writes with a newline; `output` adds its own.
    .configureOutput({
      writeOut: (text) => output.print(text.replace(/\n$/, '')),
      writeErr: (text) => output.progress(text.replace(/\n$/, '')),
    });
  const done = (code: number): void => setCode(code);
  /** Before a command that runs programs: the one note when they run without a PID namespace here. */
  const notePidNamespace = async (): Promise<void> => (await import('./pid-namespace-note.js')).notePidNamespace(output);
  let noted: Promise<void> = Promise.resolve();

  cli
    .command('run')
    .description('Run mission files (JSON or YAML) and seal each outcome in the ledger.')
    .argument('<mission...>', 'mission files (.json, .yaml, .yml)')
    .option('--json', 'print one JSON line for each finished run')
    .option('--concurrency <n>', 'with several mission files: how many run at once in this process (default 1)', positive)
    .option('--proposer <command>', "proposer program speaking redline.proposer/1 (overrides the mission's proposer)")
    .option(
      '--agent <preset|command>',
      'an agent that edits files in place (a CLI coding agent), run each attempt in a private copy; its edits are the proposal: a preset (codex, claude, qwen, gemini: the CLI with tested flags, --model, --base-url and --api-key-env passed through) or a shell command line (docs/agents.md)',
    )
    .option(
      '--agent-arg <arg>',
      "with --agent <preset>: one more argument for the agent's CLI, after the preset's own (repeatable)",
      collect,
    )
    .option(
      '--meter-upstream <url>',
      "with --agent: run the agent's model calls through a metering endpoint standing in for this base URL, which counts and prices them and ends the agent when maxTokens or maxCostUsd is spent (docs/metering.md)",
    )
    .option('--meter-prices <file>', "with --meter-upstream: model prices (JSON or YAML, USD per million tokens) over the meter's defaults")
    .option(
      '--model <name>',
      "model proposer through an OpenAI-compatible endpoint (needs --base-url); with --agent <preset>: the agent's model",
    )
    .option(
      '--base-url <url>',
      "OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1; with --agent <preset>: the agent's model endpoint as its SDK takes it",
    )
    .option(
      '--api-key-env <variable>',
      "environment variable holding the API key (default OPENAI_API_KEY; with --agent <preset>: the agent CLI's own, e.g. ANTHROPIC_API_KEY)",
    )
    .option('--approve <name>', 'an approval the mission requires (repeatable)', collect)
    .option('--ledger <location>', `${LEDGER_HELP.replace('.redline/redline.db', '.redline/redline.db next to the mission')}`)
    .option('--cache-dir <dir>', `${CACHE_HELP}; the next run on the workspace reuses its snapshot and check copy`)
    .option('--no-cache', 'take a fresh snapshot and check copy, without the cache folder')
    .option('--cache-max-size <size>', 'the cache folder cap (e.g. 2G): least recently used entries go above it (default 4G)', size)
    .option(
      '--review',
      "open the ledger's review queue before the run (created if missing), so the queue's mode and the feedback tuner's limit set the attempt budget (the tuner's limit alone when the mission sets no maxAttempts). Without --review the ledger's queue still takes the run's review by default: an unverified run is enqueued at the seal, and a sampled one at --sample-rate; a ledger without a queue gets one from the first run that needs it",
    )
    .option('--no-review', "do not hand the run to the ledger's review queue (recorded in the run's run.started)")
    .option(
      '--sample-rate <fraction>',
      'share of sampled runs (accepted without a demand red line) enqueued for review too (default 0.1)',
      fraction,
    )
    .option('--alert-webhook <url>', 'POST budget-cap alerts here once the run reports to the queue (they are logged on stderr either way)')
    .option(
      '--signing-key <file>',
      `Ed25519 private key (PEM) to sign the seal with (default: $${SIGNING_KEY_ENV}, else ${SIGNING_KEY_DEFAULT}, created on first use)`,
    )
    .option(
      '--resolves <run>',
      'start a linked run that resolves this sealed blocked or failed_with_evidence run of the same mission (recorded; the old run is never reopened)',
    )
    .option('--note <text>', 'with --resolves: the resolution note recorded with the link (what changed)')
    .option(
      '--plan-label <name>',
      "name the run's plan: the proposer's identity in the plan hash is this label instead of its command (recorded); a rerun under another label is another plan",
    )
    .option(
      '--force-same-plan',
      'run even though the same plan (mission + proposer) stopped on oscillation, reject_repeat, no_progress or human_gate last time (recorded)',
    )
    .addHelpText(
      'after',
      '\n--agent codex|claude|qwen|gemini is a preset: that CLI (on PATH, else the tested version in ~/.cache/redline-agents/<package>@<version>)\nwith a tested command line for running outside and under sandbox: bwrap; --model, --base-url, --api-key-env and --agent-arg pass\nthrough (an --agent-arg naming a permission option of the preset replaces it); an endpoint out of reach or a refused key blocks\nthe run (environment); its plan is the preset, model and arguments, not the endpoint (docs/agents.md). Any other --agent is a\nshell command line.\nThe workspace is only read: each run snapshots it into $REDLINE_SCRATCH (default: the temp directory)/redline-runs/<run>/\nand checks every candidate in a copy of that snapshot; changes made to the workspace meanwhile are reported, never checked.\nThe cache folder keeps the last snapshot and check copy of each workspace: the next run hashes only files whose stat changed\nand resets the copy; a second run on the same workspace meanwhile takes a fresh copy (`redline cache status|prune`).\nUnsealed runs of this mission whose process (on this host) is gone are recovered first (resumed, or sealed crashed);\nother unsealed runs are counted and left to `redline ledger recover`.\nEach run records its plan hash (mission + proposer identity). After a run of this mission sealed by oscillation,\nreject_repeat, no_progress or human_gate, rerunning the same plan is refused (exit 2): change the plan (another\nproposer, model, prompt or --plan-label) and link the new run with --resolves <run>, or pass --force-same-plan.\nThe identity of a command leaves out its environment assignments and puts placeholders for loopback ports and temporary\npaths (docs/ledger.md#linked-runs-and-plans); secrets in commands are recorded as *** (docs/agents.md).\nWith several mission files, every file is loaded first (one bad file refuses them all), then up to --concurrency\nruns go at once in this process against one connection per ledger; each line a run prints starts with [mission id].\nExit codes: 0 complete or complete_noop, 1 blocked or failed_with_evidence, 2 usage or mission-file error or a refused plan or link\n(with several files: the worst of the runs).',
    )
    // The probe (a program started in a namespace) runs while the run's modules load; its note still
    // comes before anything the run says.
    .hook('preAction', () => {
      noted = notePidNamespace();
      // Awaited by the action; a failure before that is not left unhandled meanwhile.
      noted.catch(() => undefined);
    })
    .action(async (files: string[], options) => {
      const single = files.length === 1 && options.concurrency === undefined;
      const command = single ? await import('./run-command.js') : await import('./run-many-command.js');
      await noted;
      done(
        'runCommand' in command
          ? await command.runCommand(files[0] as string, options, output)
          : await command.runManyCommand(files, options, output),
      );
    });

  cli
    .command('init')
    .description(
      "Write a mission.yaml for this repository: its test runner's suite as the demand check, its source folders as the scope, then run the suite once.",
    )
    .argument('[dir]', 'the repository (default: the working directory)')
    .option('--yes', 'write without asking (the default when stdin or stdout is not a terminal)')
    .option('--force', 'overwrite an existing mission.yaml')
    .option(
      '--agent <preset>',
      'the agent preset the mission names (codex, claude, qwen, gemini) or none (default: the first whose CLI is on PATH)',
    )
    .option('--json', 'print one JSON line: {mission, runners, scope, agent, baseline, environment}')
    .addHelpText(
      'after',
      "\nDetected, from package.json (the test script, dependencies, config keys), config files and test files: node:test,\nvitest, jest (its JUnit report needs jest-junit), mocha, ava, tape, tap, and pytest (run as python3 -m pytest). Each runner\nbecomes a test-runner check whose command writes a JUnit or TAP report redline reads; the scope is the source folders\n(src/, lib/, a Python package) without test files, never the tests or a runner config. A repository with no runner gets\na format check, and its runs end unverified. The mission is loaded with the mission loader, then its checks run once on\nthe repository as it is (in a copy, nothing recorded) and each runner's tests are counted, or the reason a check cannot\nrun is printed. An existing mission.yaml is never overwritten without --force. Then: npx redline run mission.yaml\n(with --agent <preset> or --proposer <program> when the mission names no agent); a task is a failing test (docs/getting-started.md).\nExit codes: 0 written and the checks ran, 1 written but a required check cannot run here (or not confirmed), 2 usage\nerror or mission.yaml exists.",
    )
    .action(async (dir: string | undefined, options) => done(await (await import('./init-command.js')).initCommand(dir, options, output)));

  cli
    .command('check')
    .description(
      'Check a mission before running it: run its checks on the unchanged baseline and on a human-written reference candidate, and say whether it is reachable, too broad or gives weak feedback.',
    )
    .argument('<mission>', 'mission file (.json, .yaml, .yml) with a workspace')
    .requiredOption(
      '--reference <dir>',
      "a full tree solving the mission: its difference from the workspace (outside the mission's ignore) is the candidate",
    )
    .option('--json', 'print one JSON line: {mission, status, reachable, tooBroad, weakFeedback, problems, candidate, baseline, reference}')
    .addHelpText(
      'after',
      '\nStatus, worst first: environment (a required check cannot run on the baseline), unreachable (the reference fails a\nrequired check, or a required check needs a file outside the scope that the baseline lacks), too_broad (every required\ndemand check passes on the baseline), weak_feedback (a required format or demand check fails on the baseline with no\nreason code naming what failed, e.g. only command.exit_nonzero), reachable. Nothing is recorded; the workspace is only read.\nExit codes: 0 reachable, 1 any other status, 2 usage or mission-file error.',
    )
    .hook('preAction', notePidNamespace)
    .action(async (file: string, options) => done(await (await import('./check-command.js')).checkCommand(file, options, output)));

  cli
    .command('mcp')
    .description(
      "Serve a mission's red lines to an agent as Model Context Protocol tools over stdio: redline_checks, redline_submit, redline_status (docs/agents.md).",
    )
    .requiredOption('--mission <file>', "mission file (.json, .yaml, .yml) whose workspace is the agent's working copy")
    .option('--ledger <location>', `${LEDGER_HELP.replace('.redline/redline.db', '.redline/redline.db next to the mission')}`)
    .option(
      '--signing-key <file>',
      `Ed25519 private key (PEM) to sign the seals with (default: $${SIGNING_KEY_ENV}, else ${SIGNING_KEY_DEFAULT}, created on first use)`,
    )
    .option(
      '--force-same-plan',
      "start the session's run even though the same plan (mission + client) stopped on oscillation, reject_repeat, no_progress or human_gate last time (recorded)",
    )
    .addHelpText(
      'after',
      "\nThe handshake (initialize, tools/list) is answered at once; the mission, the ledger and the SDK load after it. The\nbaseline is the mission's workspace as it is when the session starts, and the session's run starts then too (its\nbaseline checks run while the agent works). The agent edits the workspace, and its difference from the baseline is\nwhat redline_checks checks (in an isolated copy, nothing recorded) and what redline_submit proposes as the run's\nnext attempt; redline_status answers at once. The run's guards, ledger records, acceptance and seal are those of\n`redline run`: a run is complete only when its checks say so. Stdout carries the protocol; notes go to stderr.\nWhen the client closes stdin (or on SIGTERM/SIGINT) the open run is sealed failed_with_evidence / aborted after its\nlast submitted attempt, and the session's directories are removed (a later signal does not cut that short; after\n10 s the server exits anyway). Needs the optional peer @modelcontextprotocol/sdk.\nExit codes: 0 after the client closed, 1 still sealing 10 s after a signal, 2 usage or mission-file error, or the SDK is missing.",
    )
    // Not waited for: the client gives the server about a second to answer.
    .hook('preAction', () => void notePidNamespace())
    .action(async (options) => done(await (await import('./mcp-command.js')).mcpCommand(options, output)));

  cli
    .command('demo')
    .description('Run every bundled example mission and check each ended as documented.')
    .option('--json', 'print one JSON line per finished run')
    .option('--ledger <location>', LEDGER_HELP)
    .addHelpText('after', '\nExit code 0 when every mission ended as documented in examples/README.md, else 1.')
    .hook('preAction', notePidNamespace)
    .action(async (options: { json?: boolean; ledger?: string }) => done(await (await import('./demo-command.js')).demo(options, output)));

  const cache = cli
    .command('cache')
    .description("The cache folder that keeps each workspace's last snapshot and check copy between runs (docs/workspaces.md).");
  cache
    .command('status')
    .description('Per workspace: its entry (path), size, entries, when it was last used, and whether a run holds it.')
    .option('--cache-dir <dir>', CACHE_HELP)
    .option('--json', 'one JSON line per workspace entry')
    .action(async (options) => done(await (await import('./cache-command.js')).cacheStatusCommand(options, output)));
  cache
    .command('prune')
    .description('Remove cached entries that no run holds; entries of workspaces that no longer exist always go.')
    .option('--all', 'every entry')
    .option('--older-than <age>', 'entries last used longer ago than this (30m, 12h, 7d, 2w)', age)
    .option('--max-size <size>', 'the least recently used entries until the rest fit in this size (500M, 4G)', size)
    .option('--cache-dir <dir>', CACHE_HELP)
    .option('--json', 'one JSON line: the entries removed and the bytes freed')
    .addHelpText('after', '\nA run that finds its entry gone takes a fresh snapshot and copy. Exit code 0.')
    .action(async (options) => done(await (await import('./cache-command.js')).cachePruneCommand(options, output)));

  const ledger = cli.command('ledger').description('Inspect, verify, move and recover the recorded runs.');
  ledger
    .command('verify')
    .description(
      'Check every hash chain and signature (each run, and the review queue journal when the ledger holds a queue); name the first bad record and why.',
    )
    .option('--run <id>', 'only this run (the journal is not checked)')
    .option(
      '--public-key <file>',
      `Ed25519 public key (PEM) seals and review journal entries must be signed with (repeatable, for rotated keys); a seal or entry signed by a key not given, or not signed, fails. Default: every signing-key*.pub beside a SQLite ledger (in .redline/ of the working directory for PostgreSQL) and $${SIGNING_KEY_ENV}'s, where other keys and unsigned seals and entries are reported, not failed`,
      collect,
    )
    .option(
      '--require-signatures',
      'fail runs sealed and journal entries appended without a signature, and those signed by a key not given, with the local keys too',
    )
    .option(
      '--allow-unsigned',
      'with --public-key: report runs sealed and journal entries appended without a signature (ledgers written before signing) instead of failing them; proves nothing about those',
    )
    .option(
      '--against <digest>',
      'a digest printed earlier by `redline ledger head`: fail unless the runs and review journal entries it covers are unchanged (ones added since are fine)',
    )
    .option(
      '--json',
      'one JSON line per run (with its signature), then one for --against, then one for the journal ({"journal":"review",…})',
    )
    .option('--ledger <location>', LEDGER_HELP)
    .addHelpText(
      'after',
      '\nExit code 1 when any chain is broken (modified, missing, reordered, truncated or appended after the seal), a seal\nsignature does not verify, or the ledger does not match --against; 2 for a bad key file or digest.',
    )
    .action(async (options) => done(await (await import('./ledger-command.js')).verifyCommand(options, output)));
  ledger
    .command('head')
    .description(
      'Print a digest of the ledger (COUNT:JOURNAL:SHA256 over its sealed runs in start order and its review journal) to publish or keep elsewhere; `verify --against` checks it later.',
    )
    .option('--json', 'one JSON line: {digest, count, total, journal, firstUnsealed?}')
    .option('--ledger <location>', LEDGER_HELP)
    .addHelpText(
      'after',
      '\nThe digest covers the runs up to the first one not sealed yet; stdout holds only the digest, stderr says what it covers.',
    )
    .action(async (options) => done(await (await import('./ledger-command.js')).headCommand(options, output)));
  ledger
    .command('show')
    .description(
      "Show a run's story: attempts, findings, guard verdicts, decisions and the seal, and its links both ways (the run it resolves, the runs that resolve it); warn first when it does not verify.",
    )
    .argument('<run>', 'run id')
    .option('--json', 'the raw records as JSON lines (a warning goes to stderr); with --lineage, one JSON line per run')
    .option(
      '--lineage',
      'print the chain of linked runs the run belongs to instead: back to the first run, then every run that resolves each (--resolves)',
    )
    .option(
      '--public-key <file>',
      'Ed25519 public key (PEM) to check the seal signature with (repeatable; default: as for verify)',
      collect,
    )
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (runId: string, options) => done(await (await import('./ledger-command.js')).showCommand(runId, options, output)));
  ledger
    .command('export')
    .description('Write runs as JSON lines, exactly as stored (hashes stay valid).')
    .requiredOption('--format <format>', 'export format: jsonl')
    .option('--run <id>', 'only this run')
    .option('--out <file>', 'write to a file instead of stdout')
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (options) => done(await (await import('./ledger-command.js')).exportCommand(options, output)));
  ledger
    .command('import')
    .description('Import runs exported with `ledger export`; each run must verify and is written whole or not at all.')
    .argument('<file>', 'JSONL file, or - for stdin')
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (file: string, options) => done(await (await import('./ledger-command.js')).importCommand(file, options, output)));
  ledger
    .command('recover')
    .description('Resume every unsealed run whose process is gone, or seal it failed_with_evidence / crashed.')
    .option('--no-resume', 'seal every crashed run instead of resuming it')
    .option(
      '--signing-key <file>',
      `Ed25519 private key (PEM) to sign the seals with (default: $${SIGNING_KEY_ENV}, else ${SIGNING_KEY_DEFAULT})`,
    )
    .option('--json', 'one JSON line per run')
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (options) => done(await (await import('./ledger-command.js')).recoverCommand(options, output)));

  cli
    .command('replay')
    .description('What-if: evaluate stop policies over recorded runs (attempts used, earlier/later stops, reach).')
    .requiredOption('--policy <file>', 'JSON/YAML policy file: {name, guards} or {policies: [{name, guards}, …]}')
    .option('--task-type <type>', 'only runs of this task type')
    .option('--since <date>', 'only runs started at or after this date')
    .option('--json', 'one JSON line per policy')
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (options) => done(await (await import('./replay-command.js')).replayCommand(options, output)));

  const report = cli.command('report').description('Reports over the recorded runs.');
  report
    .command('stop-quality')
    .description(
      "Observed vs true reach per stop reason and per policy (true: the mission's shadow checks at the seal), and the judge's noise σ from repeated scores of identical candidates.",
    )
    .option('--task-type <type>', 'only runs of this task type')
    .option('--since <date>', 'only runs started at or after this date (e.g. 2026-11-23)')
    .option('--json', 'one JSON line: {all, byStopReason, byPolicy, noise}')
    .option('--ledger <location>', LEDGER_HELP)
    .addHelpText(
      'after',
      '\nobserved reach: runs sealed complete or complete_noop, of all runs; true reach: runs whose shadow verdict is pass, of those\nwith a verdict of pass or fail. Policies are the guard stacks the runs started with (after the budget guards).',
    )
    .action(async (options) => done(await (await import('./report-command.js')).stopQualityCommand(options, output)));
  report
    .command('spend')
    .description(
      "What each sealed run spent: tokens and dollars as its seal counted them (what maxTokens and maxCostUsd held), and its agents' model calls through a meter (docs/metering.md).",
    )
    .option('--task-type <type>', 'only runs of this task type')
    .option('--since <date>', 'only runs started at or after this date (e.g. 2026-11-23)')
    .option(
      '--json',
      'one JSON line: {runs: [{runId, missionId, outcome, stopReason, attempts, inputTokens, outputTokens, costUsd, modelCalls}], total}',
    )
    .option('--ledger <location>', LEDGER_HELP)
    .action(async (options) => done(await (await import('./report-command.js')).spendCommand(options, output)));

  cli
    .command('admit')
    .description(
      "Verify a complete run's chain and seal, then apply its candidate: write it into a directory, write it as a patch, or commit it to a new git branch.",
    )
    .argument('<run>', 'run id')
    .option(
      '--to <dir>',
      "directory to write the candidate into; with --patch or --git-branch, the directory they are made against (default: the mission's workspace)",
    )
    .option('--patch <file>', 'write the change as a unified diff (git apply) to this file instead of writing files')
    .option(
      '--git-branch <name>',
      "create this branch in the directory's git repository, at a new commit on HEAD, instead of writing files",
    )
    .option(
      '--force',
      "admit over files changed since the run started, runs recorded without baseline hashes, a failed shadow check, and a sampled run no reviewer approved (the last two are journaled in the ledger's review queue)",
    )
    .option('--json', 'print one JSON line for the admission (or the refusal)')
    .option('--ledger <location>', LEDGER_HELP)
    .addHelpText(
      'after',
      "\nWith --to alone the files are written into the directory; --patch or --git-branch (one of them) leave it as it is.\nEvery path is checked before anything is written: one that is or goes through a symlink, a directory or a\nsubmodule is refused, and so is one changed since the run started (unless --force); a file that already\nholds the candidate's content is left unchanged, so admitting twice changes nothing.\nBefore the paths, the run's review: a run whose shadow check failed, or a sampled run (accepted on incomplete\nsignals) whose review item no reviewer approved, is refused unless --force; a forced one is said in the output\nand journaled in the ledger's review queue (redline review journal) before anything is written.\nExit 2 for a refusal, with every path behind it, one per line; and for a run that does not verify, is not\nsealed, or did not end complete.",
    )
    .action(async (runId: string, options) => done(await (await import('./admit-command.js')).admitCommand(runId, options, output)));

  addReviewCommand({ cli, done, output, ledgerHelp: LEDGER_HELP });
  addStudyCommand({ cli, done, output });
  addJudgeCommand({ cli, done, output, ledgerHelp: LEDGER_HELP });
  addFleetCommands({ cli, done, output });
  addLimitsCommand({ cli, done, output });
  return cli;
}

/** The process's streams: results on stdout; progress, notes and errors on stderr. */
const STDIO: Output = {
  print: (line) => void process.stdout.write(`${line}\n`),
  progress: (line) => void process.stderr.write(`${line}\n`),
};

/**
 * Runs the CLI on `argv` (without node and script) and returns the exit code; prints no stack for user errors.
 * @param output where results and progress go (tests run commands in-process through it). @default the process's stdout and stderr
 */
export async function main(argv: readonly string[], output: Output = STDIO): Promise<number> {
  let code: number = EXIT.ok;
  // Every line passes the terminal-text sink, whatever a command forgot to escape.
  const safe: Output = { print: (line) => output.print(terminalText(line)), progress: (line) => output.progress(terminalText(line)) };
  try {
    await program((value) => (code = value), safe).parseAsync([...argv], { from: 'user' });
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT.ok : EXIT.usage;
    if (RedlineError.isInstance(error) || error instanceof TypeError) {
      safe.progress(`redline: ${error.message}`);
      return EXIT.usage;
    }
    throw error;
  }
}
