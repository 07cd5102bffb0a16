import type { Command } from 'commander';
import { positive } from './arguments.js';
import type * as FleetActionsModule from './fleet-actions.js';
import type { Output } from './run-command.js';

type FleetActions = typeof FleetActionsModule;

const POSTGRES_HELP =
  'the fleet\'s PostgreSQL: ledger, review queue, job queue and blobs (postgres://…, "?schema=" picks the schema, default redline)';
const LEASE_HELP = 'seconds a run stays with a worker that stopped heartbeating before another takes it over (default 30)';

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
    .option('--json', 'one JSON line per submission: {submission, mission, files, newBlobs, reusedBlobs, newBytes}')
    .addHelpText(
      'after',
      '\nEach submission is also the id of its run in the ledger. Symlinks of a workspace that lead outside it are refused.\nExit codes: 0 every file queued, 2 usage or mission-file error (nothing after the bad file is queued).',
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
      'where submissions are materialized (default: <temp>/redline-worker); a run another machine started is resumed from this copy',
    )
    .option(
      '--signing-key <file>',
      'Ed25519 private key (PEM) to sign seals with (default: $REDLINE_SIGNING_KEY, else .redline/signing-key.pem)',
    )
    .option('--no-review', "do not hand runs to the ledger's review queue")
    .option('--until-idle', 'exit once no job waits or runs anywhere (for batches and benchmarks)')
    .addHelpText(
      'after',
      '\nOne line per finished run with the live counts (running, done per outcome, failures); the fleet table\n(`redline status`) gets them every second. SIGTERM (or Ctrl-C): take no more work, finish the runs held, exit 0.',
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
