import type { Command } from 'commander';
import { byteCount, positive } from './arguments.js';
import type * as FleetActionsModule from './fleet-actions.js';
import type { Output } from './run-command.js';

type FleetActions = typeof FleetActionsModule;

const POSTGRES_HELP =
  'the fleet\'s PostgreSQL: ledger, review queue, job queue and blobs (postgres://…, "?schema=" picks the schema, default redline)';
const LEASE_HELP = 'seconds a run stays with a worker that stopped heartbeating before another takes it over (default 30)';
const MAX_BYTES_HELP = 'most bytes of all files of a workspace together (K, M, G: powers of 1024; default 1G)';
const MAX_FILE_HELP = 'most bytes of any one file of a workspace (default 256M)';
const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** `redline submit`, `redline worker` and `redline status`: many machines on one PostgreSQL (docs/workers.md). */
export function addFleetCommands({ cli, done, output }: { cli: Command; done: (code: number) => void; output: Output }): void {
  const actions = (): Promise<FleetActions> => import('./fleet-actions.js');
  cli
    .command('submit')
    .description("Queue mission files for the fleet's workers; each workspace travels as content-addressed blobs in the database.")
    .argument('<mission...>', 'mission files (.json, .yaml, .yml)')
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--proposer <command>', "proposer program the workers run (overrides the mission's proposer; it must exist on every worker)")
    .option('--lease <seconds>', LEASE_HELP, positive)
    .option(
      '--signing-key <file>',
      'Ed25519 private key (PEM) that signs each submission (default: $REDLINE_SIGNING_KEY, else .redline/signing-key.pem, created)',
    )
    .option('--max-workspace-bytes <size>', MAX_BYTES_HELP, byteCount)
    .option('--max-file-bytes <size>', MAX_FILE_HELP, byteCount)
    .option('--json', 'one JSON line per submission: {submission, mission, files, newBlobs, reusedBlobs, newBytes, keyId}')
    .addHelpText(
      'after',
      "\nEach submission is also the id of its run in the ledger. Symlinks of a workspace that lead outside it are refused,\nand so is a workspace over the size bounds (naming the file or the total). Each submission is signed: its mission,\nproposer and every file's path, mode and hash; workers run it only if they trust the key (redline worker --trust-key\n<the .pub beside the key>) and nothing changed.\nExit codes: 0 every file queued, 2 usage or mission-file error (nothing after the bad file is queued).",
    )
    .action(async (files: string[], options) => done(await (await actions()).submitCommand(files, options, output)));
  cli
    .command('worker')
    .description('Run submitted missions from the PostgreSQL job queue until SIGTERM, resuming runs whose worker died.')
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--concurrency <n>', 'runs at once (halved while the review queue is degraded) (default 1)', positive)
    .option('--lease <seconds>', LEASE_HELP, positive)
    .option(
      '--workdir <dir>',
      'where submissions are materialized (default: <temp>/redline-worker), each workspace in a directory the next submission of it reuses; a run another machine started is resumed from this copy',
    )
    .option(
      '--cache-dir <dir>',
      "the runs' cache folder (default: $REDLINE_CACHE, else <$REDLINE_SCRATCH or the temp directory>/redline-cache; REDLINE_CACHE=off turns it off)",
    )
    .option('--no-cache', 'every run writes a fresh check copy')
    .option(
      '--signing-key <file>',
      'Ed25519 private key (PEM) to sign seals with (default: $REDLINE_SIGNING_KEY, else .redline/signing-key.pem)',
    )
    .option(
      '--trust-key <file>',
      'run only submissions signed by this Ed25519 public key (PEM; repeatable): the key redline submit signed with',
      collect,
    )
    .option('--trust-database', 'run unsigned submissions as stored: anyone who can write the database can run commands here')
    .option('--max-workspace-bytes <size>', MAX_BYTES_HELP, byteCount)
    .option('--max-file-bytes <size>', MAX_FILE_HELP, byteCount)
    .option('--no-review', "do not hand runs to the ledger's review queue")
    .option('--until-idle', 'exit once no job waits or runs anywhere (for batches and benchmarks)')
    .addHelpText(
      'after',
      '\nOne of --trust-key or --trust-database is required. With --trust-key a submission runs only if its signature\nverifies under one of those keys over the mission, proposer and manifest as loaded (each file checked against its\nhash); one unsigned, signed by another key or changed after signing is refused, never run: its row says why\n(`redline status`). One line per finished run with the live counts (running, done per outcome, failures); the fleet\ntable (`redline status`) gets them every second. SIGTERM (or Ctrl-C): take no more work, finish the runs held, exit 0.\nExit codes: 0 stopped, 2 usage error (neither or both of --trust-key and --trust-database, a key that cannot be read).',
    )
    .hook('preAction', async () => (await import('./pid-namespace-note.js')).notePidNamespace(output))
    .action(async (options) => done(await (await actions()).workerCommand(options, output)));
  cli
    .command('status')
    .description("Print the fleet's state: the job queue, submissions and runs, and each worker's live counts.")
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--json', 'one JSON object')
    .action(async (options) => done(await (await actions()).statusCommand(options, output)));
}
