import type { Outcome } from '../core/outcome.js';
import { RedlineError } from '../errors/redline-error.js';
import { loadMission } from '../mission/load.js';
import { EXIT_FOR_OUTCOME, labelsOf, prefixed } from './run-labels.js';
import { prepareRun, type Output, type RunCommandOptions } from './run-command.js';
import { SharedLedgers } from './shared-ledgers.js';
import { clean } from './terminal-text.js';

export interface RunManyOptions extends RunCommandOptions {
  /** How many missions run at once in this process. @default 1 */
  readonly concurrency?: number;
}

/**
 * `redline run a.yaml b.yaml … --concurrency N` (docs/workers.md, 'One machine'): every mission file is loaded
 * first (a bad one refuses them all), then up to N run at once in this process, sharing one connection
 * per ledger. Each line a run writes starts with its mission's label; a run refused on its own (a plan,
 * a link) does not stop the others. The exit code is the worst: 2 a refusal, 1 blocked/failed, 0 complete.
 */
export async function runManyCommand(files: readonly string[], options: RunManyOptions, output: Output): Promise<number> {
  const { concurrency = 1 } = options;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new TypeError(`Expected --concurrency to be a positive integer, got ${concurrency}`);
  if (files.length > 1 && (options.resolves !== undefined || options.note !== undefined))
    throw new TypeError(`Expected one mission file with --resolves or --note, got ${files.length}`);
  const labels = labelsOf(await Promise.all(files.map(async (file) => (await loadMission(file)).id)));
  const ledgers = new SharedLedgers();
  const outcomes = new Map<Outcome | 'refused', number>();
  let worst = 0;
  let bug: unknown;
  // Setup (ledger migrations, the signing key created on first use, recovery) runs one mission at a time.
  let setup: Promise<unknown> = Promise.resolve();
  const runOne = async (index: number): Promise<void> => {
    const file = files[index] as string;
    const own = prefixed(labels[index] as string, output, options.json === true);
    try {
      const ready = setup.then(
        () => prepareRun(file, options, own, ledgers),
        () => prepareRun(file, options, own, ledgers),
      );
      setup = ready;
      const prepared = await ready;
      try {
        const result = await prepared.run();
        outcomes.set(result.outcome, (outcomes.get(result.outcome) ?? 0) + 1);
        worst = Math.max(worst, EXIT_FOR_OUTCOME[result.outcome]);
      } finally {
        await prepared.close();
      }
    } catch (error) {
      if (!(RedlineError.isInstance(error) || error instanceof TypeError)) throw error;
      own.progress(`redline: ${error.message}`);
      outcomes.set('refused', (outcomes.get('refused') ?? 0) + 1);
      worst = Math.max(worst, 2);
    }
  };
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < files.length && bug === undefined) await runOne(next++).catch((error: unknown) => void (bug ??= error));
  };
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, files.length) }, lane));
  } finally {
    await ledgers.close();
  }
  if (bug !== undefined) throw bug;
  if (options.json !== true)
    output.progress(
      `${files.length} missions, ${concurrency} at a time: ${[...outcomes].map(([outcome, count]) => `${count} ${clean(outcome)}`).join(', ')}`,
    );
  return worst;
}
