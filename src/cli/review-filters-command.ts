import { Option, type Command } from 'commander';
import { userInfo } from 'node:os';
import { describeMatch, type FilterAction, type FilterMatch, type FilterRule, type FilterRuleEntry } from '../review/filter-rules.js';
import { withReviewQueue } from './with-review-queue.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

// `redline review filters`: the queue's automatic filter rules (docs/review.md). A reviewer turns a frequent
// label's suggestion into a rule; new items it matches are decided by it before they reach a person.

export interface FiltersAddOptions {
  readonly taskType?: string;
  readonly stopReason?: string;
  readonly reasonCode?: readonly string[];
  readonly pattern?: string;
  readonly action?: FilterAction;
  readonly comment?: string;
  readonly by?: string;
  readonly json?: boolean;
  readonly ledger?: string;
}

const ruleLine = (rule: FilterRule | FilterRuleEntry): string =>
  clean(
    `${rule.id.padEnd(4)} ${(rule.enabled ? 'enabled' : 'disabled').padEnd(9)} ${rule.label.padEnd(14)} ${rule.action.padEnd(7)}${
      'caught' in rule ? ` caught ${String(rule.caught).padStart(5)}` : ''
    }  ${describeMatch(rule.match)}  (by ${rule.createdBy})`,
  );

const defaultReviewer = (): string => process.env.USER ?? userInfo().username;

/** `redline review filters`: every rule, with what it matches and how many items it caught. */
export async function filtersListCommand(
  { json = false, ledger }: { json?: boolean; ledger?: string },
  { print }: Output,
): Promise<number> {
  return withReviewQueue(ledger, async (queue, name) => {
    const rules = await queue.filterRules();
    if (json) {
      for (const rule of rules) print(jsonLine(rule));
      return 0;
    }
    print(rules.length === 0 ? `no filter rules in ${name}` : `filter rules in ${name}:`);
    for (const rule of rules) print(`  ${ruleLine(rule)}`);
    const { suggestions } = await queue.stats();
    for (const { label, suggestion } of suggestions) print(`suggestion: ${clean(suggestion)} (redline review filters add ${clean(label)})`);
    return 0;
  });
}

/**
 * `redline review filters add LABEL`: accepts a suggestion as a rule. Without match options the rule
 * matches what the recent items people gave LABEL have in common; options set the match instead.
 */
export async function filtersAddCommand(label: string, options: FiltersAddOptions, { print }: Output): Promise<number> {
  const given: FilterMatch = {
    ...(options.taskType === undefined ? {} : { taskType: options.taskType }),
    ...(options.stopReason === undefined ? {} : { stopReason: options.stopReason }),
    ...(options.reasonCode === undefined ? {} : { reasonCodes: options.reasonCode }),
    ...(options.pattern === undefined ? {} : { pattern: options.pattern }),
  };
  return withReviewQueue(options.ledger, async (queue) => {
    let match = given;
    if (Object.keys(given).length === 0) {
      const proposal = await queue.proposeFilterRule(label);
      if (Object.keys(proposal.match).length === 0) {
        throw new TypeError(
          `Expected items labelled ${label} to share a task type, stop reason or reason codes, got ${proposal.labelled} that share none: give --task-type, --stop-reason, --reason-code or --pattern`,
        );
      }
      match = proposal.match;
    }
    const { rule, repeated } = await queue.addFilterRule({
      label,
      match,
      ...(options.action === undefined ? {} : { action: options.action }),
      ...(options.comment === undefined ? {} : { comment: options.comment }),
      by: options.by ?? defaultReviewer(),
    });
    if (options.json === true) print(jsonLine({ rule, repeated }));
    else print(`${repeated ? 'already in force' : 'added'}: ${ruleLine(rule)}`);
    return 0;
  });
}

/** `redline review filters disable|enable ID`. */
export async function filtersSetCommand(
  id: string,
  enabled: boolean,
  { by, ledger }: { by?: string; ledger?: string },
  { print }: Output,
): Promise<number> {
  return withReviewQueue(ledger, async (queue) => {
    const rule = await queue.setFilterRule(id, { enabled, by: by ?? defaultReviewer() });
    print(`${enabled ? 'enabled' : 'disabled'}: ${ruleLine(rule)}`);
    return 0;
  });
}

const collect = (value: string, previous: readonly string[] = []): readonly string[] => [...previous, value];

/** Adds `redline review filters [add|disable|enable]` under `review`. */
export function addFiltersCommand({
  review,
  done,
  output,
  ledgerHelp,
}: {
  review: Command;
  done: (code: number) => void;
  output: Output;
  ledgerHelp: string;
}): void {
  const filters = review
    .command('filters')
    .description('Automatic filter rules: list them with what each caught, add one from a suggestion, disable or enable one.')
    // The list's own options come before a subcommand's name; after it, `--ledger` and `--json` are the subcommand's.
    .enablePositionalOptions()
    .option('--json', 'one JSON line per rule')
    .option('--ledger <location>', ledgerHelp)
    .action(async (options: { json?: boolean; ledger?: string }) => done(await filtersListCommand(options, output)));
  filters
    .command('add')
    .description(
      'Accept a suggestion as a rule: new items that match it get LABEL and leave the queue without a person. Without match options it matches what the recent items labelled LABEL share (task type, stop reason, failing reason codes).',
    )
    .argument('<label>', 'the verdict label the rule gives')
    .option('--task-type <type>', "match the run's task type")
    .option('--stop-reason <code>', 'match the stop reason the run was cut off for (e.g. budget_attempts)')
    .option('--reason-code <code>', 'match items failing with this reason code (repeatable: all must be there)', collect)
    .option(
      '--pattern <text>',
      'match items whose task, cutoff reason, last error or a failing message contains this text (case-insensitive)',
    )
    .addOption(
      new Option('--action <action>', 'return: back to the loop as feedback (a waiting human judge refines); reject: fail it')
        .choices(['return', 'reject'])
        .default('return'),
    )
    .option('--comment <text>', 'the feedback the verdict carries')
    .option('--by <name>', 'who adds the rule (default: the system user)')
    .option('--json', 'the rule as one JSON line')
    .option('--ledger <location>', ledgerHelp)
    .addHelpText(
      'after',
      '\nThe same rule again changes nothing (exit 0). Exit code 2 for an unknown label or a match that would catch everything.',
    )
    .action(async (label: string, options: FiltersAddOptions) => done(await filtersAddCommand(label, options, output)));
  for (const [name, enabled] of [
    ['disable', false],
    ['enable', true],
  ] as const) {
    filters
      .command(name)
      .description(enabled ? 'Put a disabled rule in force again.' : 'Stop a rule from catching items; it stays listed with its count.')
      .argument('<id>', 'the rule, as `redline review filters` lists it (r1, r2, …)')
      .option('--by <name>', 'who changes it (default: the system user)')
      .option('--ledger <location>', ledgerHelp)
      .action(async (id: string, options: { by?: string; ledger?: string }) => done(await filtersSetCommand(id, enabled, options, output)));
  }
}
