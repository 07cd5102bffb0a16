import type { Command } from 'commander';
import { ANY_MODEL } from '../limits/rate-limit.js';
import { positiveNumber } from './arguments.js';
import type * as LimitsActionsModule from './limits-actions.js';
import type { LimitsSetOptions } from './limits-actions.js';
import type { Output } from './run-command.js';

const POSTGRES_HELP = 'the fleet\'s PostgreSQL (postgres://…, "?schema=" picks the schema, default redline)';

/** Adds `redline limits [list|set|remove]`. */
export function addLimitsCommand({ cli, done, output }: { cli: Command; done: (code: number) => void; output: Output }): void {
  const actions = (): Promise<typeof LimitsActionsModule> => import('./limits-actions.js');
  const limits = cli
    .command('limits')
    .description("The fleet's rate limits per model endpoint, shared by every worker through PostgreSQL (docs/workers.md).")
    .enablePositionalOptions()
    .addHelpText(
      'after',
      `\nA limit names an endpoint (the base URL a mission's model proposer, judge or score check names) and a model, or
"${ANY_MODEL}" for every model there. Each model call a worker makes waits until every limit on its endpoint and model has
room (a request, and its prompt estimate plus output cap in tokens), and gives back the tokens it did not use.
Programs a mission runs (command and agent proposers) call models on their own: their calls are not limited.
Exit codes: 0 done, 1 remove found no such limit, 2 usage error.`,
    );
  limits
    .command('list', { isDefault: true })
    .description('List the limits (the default: redline limits --postgres URL).')
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--json', 'one JSON line per limit: {endpoint, model, requestsPerMinute, tokensPerMinute, burstSeconds}')
    .action(async (options: { postgres: string; json?: boolean }) => done(await (await actions()).limitsListCommand(options, output)));
  limits
    .command('set')
    .description('Add or replace the limit of an endpoint (and model); running workers apply it at their next model call.')
    .argument('<endpoint>', 'base URL as the mission names it (e.g. https://api.openai.com/v1), or an AI SDK provider id')
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--model <id>', `limit one model at the endpoint (default ${ANY_MODEL}: every call to the endpoint)`)
    .option('--requests-per-minute <n>', 'requests the endpoint takes per minute', positiveNumber)
    .option('--tokens-per-minute <n>', 'prompt and completion tokens the endpoint takes per minute', positiveNumber)
    .option('--burst <seconds>', "seconds of allowance that may go at once after a quiet spell (default 60: a minute's)", positiveNumber)
    .option('--json', 'the limit as one JSON line')
    .action(async (endpoint: string, options: LimitsSetOptions) =>
      done(await (await actions()).limitsSetCommand(endpoint, options, output)),
    );
  limits
    .command('remove')
    .description('Remove the limit of an endpoint (and model): its calls go at once again.')
    .argument('<endpoint>', 'base URL or provider id, as set')
    .requiredOption('--postgres <url>', POSTGRES_HELP)
    .option('--model <id>', `the model the limit names (default ${ANY_MODEL})`)
    .action(async (endpoint: string, options: { postgres: string; model?: string }) =>
      done(await (await actions()).limitsRemoveCommand(endpoint, options, output)),
    );
}
