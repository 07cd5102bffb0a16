import { Option, type Command } from 'commander';
import { clean, jsonLine, painter, shellArg, type Style } from './terminal-text.js';
import { count, fraction, positive } from './arguments.js';
import { displayLocation } from '../ledger/open-ledger.js';
import { parseDuration } from '../mission/duration.js';
import { alertLine } from '../review/alerts.js';
import { watermark } from '../review/backpressure.js';
import { VERDICT_LABELS } from '../review/labels.js';
import { ReviewError } from '../review/review-error.js';
import type { ReviewQueueOptions } from '../review/config.js';
import type { JournalEntry } from '../review/journal-entries.js';
import type { ReviewerQueue, VerdictResult } from '../review/reviewer-queue.js';
import type { ReviewEntry, ReviewItem } from '../review/types.js';
import { table } from './format.js';
import type { Output } from './run-command.js';
import { ledgerRunOf } from '../judge/request-key.js';
import { age } from '../review-app/age.js';
import type { ReviewServeOptions } from './review-serve-command.js';
import { addFiltersCommand } from './review-filters-command.js';
import { withReviewQueue } from './with-review-queue.js';

// Task, output, errors and tags come from agents: untrusted text. Every stored string goes through
// `clean` (text) or `jsonLine` (JSON) before it reaches the terminal, so no escape sequence, carriage
// return or bidi override in it can rewrite the screen or hide what the reviewer is deciding on.

/** Newest dropped items and alerts `review stats` shows. */
const NEWEST = 5;
/** Lines of one file `review show` prints; `--json` has them all. */
const MAX_LINES = 200;

const short = (text: string, width: number): string => (text.length > width ? `${text.slice(0, width - 1)}…` : text);
const percent = (rate: number): string => `${Math.round(rate * 100)}%`;
const iso = (ms: number): string => new Date(ms).toISOString();

async function entryOrFail(queue: ReviewerQueue, itemId: string): Promise<ReviewEntry> {
  const entry = await queue.get(itemId);
  if (entry === undefined) throw new ReviewError({ code: 'review.not_found', itemId, message: `No review item ${itemId}` });
  return entry;
}

function status(entry: ReviewEntry, at: number): string {
  if (entry.claim !== undefined) return `claimed by ${clean(entry.claim.reviewer)} (${age(entry.claim.leaseUntil - at)} left)`;
  const verdict = entry.verdict;
  if (verdict !== undefined)
    return `decided: ${verdict.decision === 'approve' ? 'approved' : 'rejected'} (${clean(verdict.label)}) by ${clean(verdict.reviewer)} at ${iso(verdict.decidedAt)}`;
  return entry.status;
}

/** A text as `+ ` lines, at most MAX_LINES of them. */
function listing(text: string, paint: (style: Style, text: string) => string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length === 0) return ['  (empty)'];
  const shown = lines.slice(0, MAX_LINES).map((line) => `  ${paint(32, `+ ${clean(line)}`)}`);
  return lines.length > MAX_LINES ? [...shown, `  … ${lines.length - MAX_LINES} more line(s): --json shows them all`] : shown;
}

/** `title  text` for one line of text; the title above the text, indented, for more. */
function block(title: string, text: string): string[] {
  const lines = text.split('\n');
  return lines.length === 1 ? [`${title}  ${clean(text)}`] : [title, ...lines.map((line) => `  ${clean(line)}`)];
}

/** The failing findings of the run's last check set, each with its reason codes, place and message; then what was stripped. */
function failingLines(item: ReviewItem, paint: (style: Style, text: string) => string): string[] {
  const lines: string[] = [];
  const failing = item.failing ?? [];
  if (failing.length > 0) lines.push(paint(1, `failing (${failing.length + (item.failingOmitted ?? 0)})`));
  for (const finding of failing) {
    const where =
      finding.location?.file === undefined
        ? ''
        : ` at ${finding.location.file}${finding.location.line === undefined ? '' : `:${finding.location.line}`}`;
    lines.push(`  ${clean(finding.check)}  ${clean(finding.reasonCodes.join(', ') || finding.status)}${clean(where)}`);
    lines.push(...finding.message.split('\n').map((line: string) => `    ${clean(line)}`));
  }
  if (item.failingOmitted !== undefined)
    lines.push(`  … and ${item.failingOmitted} more: redline ledger show ${shellArg(clean(item.runId))}`);
  for (const { pattern, count } of item.stripped ?? [])
    lines.push(`${paint(1, 'stripped')}  ${count} × ${clean(pattern)} from the final output (thinking-token leakage)`);
  return lines;
}

/** The brief for a person (docs/review.md): task, highlighted final output, cutoff reason, last error and failing findings, attempts; never the raw trace. */
function brief(entry: ReviewEntry, { at, ledger }: { at: number; ledger?: string | undefined }): string[] {
  const { item } = entry;
  const paint = painter();
  const lines = [
    paint(1, `item ${clean(item.id)}`) + ` · ${status(entry, at)}`,
    `run ${clean(item.runId)} · priority ${item.priority} · attempts ${item.attempts} · verification ${item.verification}${item.tags.length === 0 ? '' : ` · tags ${clean(item.tags.join(', '))}`}`,
    `enqueued ${iso(item.enqueuedAt)} (${age(at - item.enqueuedAt)} ago)${entry.claims > 1 ? ` · claimed ${entry.claims} times` : ''}`,
    '',
    paint(1, 'task'),
    ...item.task.split('\n').map((line) => `  ${clean(line)}`),
    '',
    ...block(paint(1, 'cutoff reason'), item.cutoffReason),
    ...block(paint(1, 'last error'), item.lastError ?? '(none)'),
    ...failingLines(item, paint),
    '',
    paint(1, 'final output'),
  ];
  const files = Object.entries(item.finalOutput.files).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [file, content] of files) {
    if (content === null) lines.push(`  ${paint(31, `--- ${clean(file)} (deleted)`)}`);
    else lines.push(`  ${paint(1, `+++ ${clean(file)}`)}`, ...listing(content, paint));
  }
  const value = item.finalOutput.value;
  if (value !== undefined)
    lines.push(
      `  ${paint(1, '=== value')}`,
      ...listing(typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value)), paint),
    );
  if (files.length === 0 && value === undefined) lines.push('  (no files changed, no value)');
  if (entry.verdict?.comment !== undefined) lines.push('', `${paint(1, 'comment')}  ${clean(entry.verdict.comment)}`);
  const flag = ledger === undefined ? '' : ` --ledger ${shellArg(displayLocation(ledger))}`;
  lines.push('', `raw trace: redline ledger show ${shellArg(clean(ledgerRunOf(item.runId)))}${clean(flag)}`);
  return lines;
}

export interface ReviewListOptions {
  readonly limit?: number;
  readonly json?: boolean;
  readonly ledger?: string;
}

/** `redline review list`: the queue in review order as a table, or one JSON line per item. */
export async function reviewListCommand({ limit, json = false, ledger }: ReviewListOptions, { print }: Output): Promise<number> {
  return withReviewQueue(ledger, async (queue, name) => {
    const entries = await queue.list(limit === undefined ? {} : { limit });
    if (json) {
      for (const entry of entries) print(jsonLine(entry));
      return 0;
    }
    const at = Date.now();
    const [depth, mode] = await Promise.all([queue.depth(), queue.mode()]);
    if (entries.length > 0) {
      const rows = entries.map(({ item, ...entry }) => [
        clean(item.id),
        String(item.priority),
        age(at - item.enqueuedAt),
        String(item.attempts),
        item.verification,
        short(clean(item.tags.join(',')), 20) || '-',
        short(status({ item, ...entry }, at), 32),
        short(clean(item.cutoffReason), 40),
        short(clean(item.task), 50),
      ]);
      print(table(['item', 'priority', 'age', 'attempts', 'verification', 'tags', 'status', 'cutoff reason', 'task'], rows));
    } else if (depth === 0) print('queue empty');
    print(`${entries.length} of ${depth} item(s) shown · capacity ${queue.config.backpressure.capacity} · mode ${mode} · ${name}`);
    return 0;
  });
}

/** `redline review show`: one item's brief. */
export async function reviewShowCommand(
  itemId: string,
  { json = false, ledger }: { json?: boolean; ledger?: string },
  { print }: Output,
): Promise<number> {
  return withReviewQueue(ledger, async (queue) => {
    const entry = await entryOrFail(queue, itemId);
    for (const line of json ? [jsonLine(entry)] : brief(entry, { at: Date.now(), ledger })) print(line);
    return 0;
  });
}

export interface ReviewClaimOptions {
  readonly reviewer: string;
  readonly lease: string;
  readonly json?: boolean;
  readonly ledger?: string;
}

/** `redline review claim`: takes the next item for `reviewer` and shows its brief; "queue empty" (exit 0) when none is left. */
export async function reviewClaimCommand(
  { reviewer, lease, json = false, ledger }: ReviewClaimOptions,
  { print }: Output,
): Promise<number> {
  const leaseMs = parseDuration(lease);
  if (leaseMs === undefined) throw new TypeError(`Expected --lease to be a duration such as 90s, 15m or 1h, got ${JSON.stringify(lease)}`);
  return withReviewQueue(ledger, async (queue) => {
    const entry = await queue.claim(reviewer, { leaseMs });
    if (json) print(jsonLine(entry ?? null));
    else if (entry === undefined) print('queue empty');
    else {
      const claim = entry.claim;
      print(
        `claimed ${clean(entry.item.id)} for ${clean(reviewer)}${claim === undefined ? '' : ` until ${iso(claim.leaseUntil)} (lease ${lease})`}`,
      );
      print('');
      for (const line of brief(entry, { at: Date.now(), ledger })) print(line);
      print('');
      print(
        `decide: redline review verdict ${shellArg(clean(entry.item.id))} --reviewer ${shellArg(clean(reviewer))} --approve|--reject --label LABEL`,
      );
    }
    return 0;
  });
}

export interface ReviewVerdictOptions {
  readonly reviewer: string;
  readonly approve?: boolean;
  readonly reject?: boolean;
  readonly label: string;
  readonly comment?: string;
  readonly json?: boolean;
  readonly ledger?: string;
}

function verdictLines(itemId: string, { verdict, repeated, modeChanged, limitChanged }: VerdictResult): string[] {
  const what = `${verdict.decision === 'approve' ? 'approved' : 'rejected'} (${clean(verdict.label)}) by ${clean(verdict.reviewer)}`;
  if (repeated)
    return [
      `${clean(itemId)} already has this verdict: ${what} at ${iso(verdict.decidedAt)} (verdict ${clean(verdict.id)}); nothing changed`,
    ];
  const lines = [`${clean(itemId)} ${what} (verdict ${clean(verdict.id)})`];
  if (modeChanged !== undefined) lines.push(`queue mode ${modeChanged.from} → ${modeChanged.to} at depth ${modeChanged.depth}`);
  if (limitChanged !== undefined)
    lines.push(
      `attempt limit ${limitChanged.from} → ${limitChanged.to}: approve rate ${percent(limitChanged.approveRate)} over the last ${limitChanged.verdictIds.length} verdicts`,
    );
  return lines;
}

/** `redline review verdict`: approve or reject an item with a reason label; a repeated identical verdict changes nothing (exit 0). */
export async function reviewVerdictCommand(
  itemId: string,
  { reviewer, approve = false, reject = false, label, comment, json = false, ledger }: ReviewVerdictOptions,
  { print }: Output,
): Promise<number> {
  if (approve === reject) throw new TypeError('Expected exactly one of --approve or --reject, got neither');
  return withReviewQueue(ledger, async (queue) => {
    const result = await queue.verdict(itemId, {
      reviewer,
      decision: approve ? 'approve' : 'reject',
      label,
      ...(comment === undefined ? {} : { comment }),
    });
    for (const line of json ? [jsonLine(result)] : verdictLines(itemId, result)) print(line);
    return 0;
  });
}

/** `redline review stats`: depth, mode, the tuner's limit, approve rate, label counts, suggestions, drops and alerts. */
export async function reviewStatsCommand(
  { json = false, ledger }: { json?: boolean; ledger?: string },
  { print }: Output,
): Promise<number> {
  return withReviewQueue(ledger, async (queue, name) => {
    const stats = await queue.stats();
    // Only the five shown are read, however long the logs.
    const newestDropped = stats.dropped === 0 ? [] : await queue.droppedItems({ limit: NEWEST, newestFirst: true });
    const newestAlerts = stats.alerts === 0 ? [] : await queue.alerts({ limit: NEWEST, newestFirst: true });
    if (json) {
      print(jsonLine({ ...stats, newestDropped, newestAlerts }));
      return 0;
    }
    const { backpressure, tuner } = queue.config;
    const labels = Object.entries(stats.labelCounts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
    const lines = [
      `review queue in ${name}`,
      `depth          ${stats.depth} of ${stats.capacity} (${stats.claimed} claimed) · degraded above ${watermark(backpressure.high, backpressure.capacity)}, normal again below ${watermark(backpressure.low, backpressure.capacity)}`,
      `mode           ${stats.mode}`,
      `attempt limit  ${stats.attemptLimit} (tuner over the last ${tuner.window} verdicts: +1 above ${percent(tuner.raiseAbove)} approved, −1 below ${percent(tuner.lowerBelow)}, within [${tuner.min}, ${tuner.max}])`,
      `verdicts       ${stats.verdicts.total} (${stats.verdicts.approved} approved, ${stats.verdicts.rejected} rejected)`,
      `approve rate   ${stats.approveRate === undefined ? '- (no verdicts yet)' : `${percent(stats.approveRate)} over the last ${stats.window} verdicts`}`,
      '',
      `label counts over the last ${stats.window} verdicts:`,
      ...labels.map(([label, count]) => `  ${clean(label).padEnd(16)} ${count}`),
      '',
      stats.suggestions.length === 0 ? 'suggestions    none' : 'suggestions:',
      ...stats.suggestions.map((suggestion) => `  - ${clean(suggestion.suggestion)}`),
      '',
      `dropped        ${stats.dropped} (circuit-breaker log)${newestDropped.length === 0 ? '' : `; newest ${newestDropped.length}:`}`,
      ...newestDropped.map(
        ({ item, droppedAt, depth }) =>
          `  ${clean(item.id)}  priority ${item.priority}  dropped ${iso(droppedAt)} at depth ${depth}  run ${clean(item.runId)}  ${short(clean(item.task), 50)}`,
      ),
      `alerts         ${stats.alerts}${newestAlerts.length === 0 ? '' : `; newest ${newestAlerts.length}:`}`,
      ...newestAlerts.map((alert) => `  ${iso(alert.raisedAt)}  ${clean(alertLine(alert))}`),
    ];
    for (const line of lines) print(line);
    return 0;
  });
}

export interface ReviewSettingsOptions {
  readonly capacity?: number;
  readonly high?: number;
  readonly low?: number;
  readonly labels?: string;
  readonly tunerMin?: number;
  readonly tunerMax?: number;
  readonly json?: boolean;
  readonly ledger?: string;
}

/** `redline review settings`: shows the settings stored with the queue; options change them (journaled). */
export async function reviewSettingsCommand(
  { capacity, high, low, labels, tunerMin, tunerMax, json = false, ledger }: ReviewSettingsOptions,
  { print }: Output,
): Promise<number> {
  const backpressure = {
    ...(capacity === undefined ? {} : { capacity }),
    ...(high === undefined ? {} : { high }),
    ...(low === undefined ? {} : { low }),
  };
  const tuner = { ...(tunerMin === undefined ? {} : { min: tunerMin }), ...(tunerMax === undefined ? {} : { max: tunerMax }) };
  const options: ReviewQueueOptions = {
    ...(Object.keys(backpressure).length === 0 ? {} : { backpressure }),
    ...(Object.keys(tuner).length === 0 ? {} : { tuner }),
    ...(labels === undefined
      ? {}
      : {
          labels: labels
            .split(',')
            .map((label) => label.trim())
            .filter((label) => label !== ''),
        }),
  };
  return withReviewQueue(
    ledger,
    async (queue, name) => {
      const { backpressure: bp, labels: policy, tuner: t, alerts } = queue.config;
      if (json) {
        print(jsonLine(queue.config));
        return 0;
      }
      for (const line of [
        `review queue settings in ${name}`,
        `capacity       ${bp.capacity} · degraded above ${watermark(bp.high, bp.capacity)} (high ${bp.high}), normal again below ${watermark(bp.low, bp.capacity)} (low ${bp.low})`,
        `labels         ${policy.labels.map(clean).join(', ')} · suggestions past ${policy.suggestAbove} in the last ${policy.window} verdicts`,
        `tuner          start ${t.initial}, within [${t.min}, ${t.max}], over the last ${t.window} verdicts: +1 above ${percent(t.raiseAbove)} approved, −1 below ${percent(t.lowerBelow)}`,
        `alerts         budget-capped share above ${percent(alerts.threshold)} of the last ${alerts.window} runs`,
      ]) {
        print(line);
      }
      return 0;
    },
    options,
    { creates: true },
  );
}

/** `redline review journal`: the queue's hash-chained journal, oldest first. */
export async function reviewJournalCommand({ limit, json = false, ledger }: ReviewListOptions, { print }: Output): Promise<number> {
  // Loaded here: the entries' schemas (zod) are not what `redline --help` should load.
  const { parseJournalEntry } = await import('../review/journal-entries.js');
  return withReviewQueue(ledger, async (queue) => {
    const rows = await queue.journal(limit === undefined ? {} : { limit });
    for (const row of rows) {
      const entry = parseJournalEntry(row);
      if (json) print(jsonLine({ seq: row.seq, type: entry.type, at: entry.at, data: entry.data, hash: row.hash }));
      else print(`${String(entry.seq).padStart(5)}  ${iso(entry.at)}  ${entry.type.padEnd(12)}  ${clean(journalSummary(entry))}`);
    }
    return 0;
  });
}

function journalSummary(entry: JournalEntry): string {
  switch (entry.type) {
    case 'verdict': {
      const d = entry.data;
      return `${d.itemId} ${d.decision === 'approve' ? 'approved' : 'rejected'} (${d.label}) by ${d.reviewer}, run ${d.runId}`;
    }
    case 'mode_change': {
      const d = entry.data;
      return `${d.from} → ${d.to} at depth ${d.depth} (item ${String(d.itemId)})`;
    }
    case 'limit_change': {
      const d = entry.data;
      return `attempt limit ${d.from} → ${d.to}: approve rate ${percent(d.approveRate)} over ${d.verdictIds.length} verdicts`;
    }
    case 'drop': {
      const d = entry.data;
      return `dropped ${d.item.id} (priority ${d.item.priority}, run ${d.item.runId}) at depth ${d.depth} for ${d.displacedBy}`;
    }
    case 'alert':
      return alertLine(entry.data);
    case 'settings':
      return entry.data.from === undefined ? 'settings stored' : 'settings changed';
    case 'filter_rule': {
      const { event, rule, by } = entry.data;
      return `filter rule ${rule.id} (${rule.label}, ${rule.action}) ${event} by ${by}`;
    }
    case 'admission': {
      const { runId, by, overrides, mode, into } = entry.data;
      return `run ${runId} admitted with --force by ${by} (${mode} into ${into}) over: ${overrides.map(({ reason }) => reason).join('; ')}`;
    }
  }
}

/** Adds `redline review list|show|claim|verdict|stats|settings|journal|serve|filters|token add`; `ledgerHelp` is the ledger commands' `--ledger` help. */
export function addReviewCommand({
  cli,
  done,
  output,
  ledgerHelp,
}: {
  cli: Command;
  done: (code: number) => void;
  output: Output;
  ledgerHelp: string;
}): void {
  const review = cli
    .command('review')
    .description('The human review queue: briefs of what runs could not verify, verdicts, and queue statistics.')
    .enablePositionalOptions();
  review
    .command('list')
    .description('List the queue in review order (priority, then age): item, priority, age, attempts, verification, tags, cutoff reason.')
    .option('--limit <n>', 'show at most n items', count)
    .option('--json', 'one JSON line per item')
    .option('--ledger <location>', ledgerHelp)
    .action(async (options: ReviewListOptions) => done(await reviewListCommand(options, output)));
  review
    .command('show')
    .description(
      "Show one item's brief: task, final output, cutoff reason, last error and failing findings, attempts; the raw trace stays in the ledger.",
    )
    .argument('<item>', 'review item id')
    .option('--json', 'the item as one JSON line')
    .option('--ledger <location>', ledgerHelp)
    .addHelpText(
      'after',
      '\nAgent output is printed with control characters spelled out (\\x1b, \\r, \\u{202e}). Exit code 2 for an unknown item.',
    )
    .action(async (itemId: string, options: { json?: boolean; ledger?: string }) => done(await reviewShowCommand(itemId, options, output)));
  review
    .command('claim')
    .description('Take the next item (highest priority, then oldest) no other reviewer holds, and show its brief.')
    .requiredOption('--reviewer <name>', 'who reviews it')
    .option('--lease <duration>', 'how long the claim holds before the item returns to the queue (e.g. 90s, 15m, 1h)', '15m')
    .option('--json', 'the claimed item as one JSON line (null when the queue is empty)')
    .option('--ledger <location>', ledgerHelp)
    .addHelpText('after', '\nPrints "queue empty" (exit 0) when no item is left to claim.')
    .action(async (options: ReviewClaimOptions) => done(await reviewClaimCommand(options, output)));
  review
    .command('verdict')
    .description(
      'Approve or reject an item with a reason label; the item leaves the queue and the feedback tuner may change the attempt limit.',
    )
    .argument('<item>', 'review item id')
    .requiredOption('--reviewer <name>', 'who decided')
    .addOption(new Option('--approve', 'approve the output').conflicts('reject'))
    .addOption(new Option('--reject', 'reject the output'))
    .requiredOption('--label <label>', `reason label: ${VERDICT_LABELS.join(', ')}`)
    .option('--comment <text>', 'a note kept with the verdict')
    .option('--json', 'the verdict result as one JSON line')
    .option('--ledger <location>', ledgerHelp)
    .addHelpText(
      'after',
      '\nThe same verdict again changes nothing (exit 0). Exit code 2 for an unknown item or label, a verdict\nthat contradicts the one given, a dropped item, or an item another reviewer holds.',
    )
    .action(async (itemId: string, options: ReviewVerdictOptions) => done(await reviewVerdictCommand(itemId, options, output)));
  review
    .command('stats')
    .description('Depth and capacity, mode, attempt limit, approve rate, label counts, filter-rule suggestions, dropped items and alerts.')
    .option('--json', 'the statistics as one JSON line, with the newest dropped items and alerts')
    .option('--ledger <location>', ledgerHelp)
    .action(async (options: { json?: boolean; ledger?: string }) => done(await reviewStatsCommand(options, output)));
  review
    .command('settings')
    .description('Show the settings stored with the queue (every process uses them); the options change them, and the change is journaled.')
    .option('--capacity <n>', 'most items the queue holds', positive)
    .option('--high <fraction>', 'degraded mode above this share of capacity', fraction)
    .option('--low <fraction>', 'normal mode again below this share of capacity', fraction)
    .option(
      '--labels <list>',
      `verdict labels added to ${VERDICT_LABELS.join(', ')} (comma-separated, snake_case; replaces those added before)`,
    )
    .option('--tuner-min <n>', 'lowest attempt limit the feedback tuner sets', positive)
    .option('--tuner-max <n>', 'highest attempt limit the feedback tuner sets', positive)
    .option('--json', 'the settings as one JSON line')
    .option('--ledger <location>', ledgerHelp)
    .addHelpText(
      'after',
      '\nExit code 2 for settings that cannot hold (for example a low watermark above the high one); nothing is changed then.',
    )
    .action(async (options: ReviewSettingsOptions) => done(await reviewSettingsCommand(options, output)));
  review
    .command('journal')
    .description(
      "The queue's hash-chained journal, oldest first: settings, verdicts, mode and attempt-limit changes, drops, alerts. `redline ledger verify` checks it.",
    )
    .option('--limit <n>', 'show at most n entries', count)
    .option('--json', 'one JSON line per entry, with its hash')
    .option('--ledger <location>', ledgerHelp)
    .action(async (options: ReviewListOptions) => done(await reviewJournalCommand(options, output)));
  serveOptions(
    review
      .command('serve')
      .description(
        'Serve the reviewer web app: the queue, one brief with the verdict form and keyboard shortcuts, the evidence, the runs, a status bar.',
      ),
    ledgerHelp,
  ).action(async (options: ReviewServeOptions) =>
    done(await (await import('./review-serve-command.js')).reviewServeCommand(options, output)),
  );
  // `redline serve`: the same app, landing on the runs (docs/runs-app.md).
  serveOptions(
    cli
      .command('serve')
      .description(
        'Serve the runs in the browser beside the review queue: every run (outcome, attempts, spend), each run’s timeline with diffs, findings, scores, transcript and seal, live while it runs.',
      ),
    ledgerHelp,
  ).action(async (options: ReviewServeOptions) =>
    done(await (await import('./review-serve-command.js')).reviewServeCommand(options, output, { home: '/runs' })),
  );
  addFiltersCommand({ review, done, output, ledgerHelp });
  review
    .command('token')
    .description('Sign-in tokens of named reviewers for the web app.')
    .command('add')
    .description('Create a token for reviewer NAME, printed once; the queue stores only its hash. A new token for a name revokes the old.')
    .argument('<name>', "the reviewer's name, as their verdicts will carry it")
    .option('--ledger <location>', ledgerHelp)
    .action(async (name: string, options: { ledger?: string }) =>
      done(await (await import('./review-serve-command.js')).reviewTokenAddCommand(name, options, output)),
    );
}

/** The options and help of `review serve` and `serve`, one app behind both. */
function serveOptions(command: Command, ledgerHelp: string): Command {
  return command
    .option('--port <n>', 'port to listen on (0: any free port)', count, 4848)
    .option('--host <address>', 'address to bind (loopback by default: only this machine reaches it)', '127.0.0.1')
    .option('--reviewer <name>', "who the start token signs in as (default: the system user's name)")
    .option('--lease <duration>', 'how long a claim taken in the app holds before the item returns to the queue', '15m')
    .option('--claims <n>', 'live claims one reviewer may hold at once (n opens the one held)', positive, 1)
    .option(
      '--host-name <name>',
      'a host name the app is reached by besides the bound address (repeatable); requests naming any other get 421',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--ledger <location>', ledgerHelp)
    .addHelpText(
      'after',
      "\nPrints the address and a sign-in link (a generated token: it works once, for 10 minutes, and asks before\nit signs in), or uses $REDLINE_REVIEW_TOKEN. A token is sent once and then held in an\nHttpOnly, SameSite=Strict session cookie. Reviewers added with `redline review token add NAME` sign in\nwith their own token; their verdicts name them. Runs until Ctrl-C.\n\nLimits: a body before sign-in 16 KiB, after 64 KiB (a comment 4,000 characters, a label 100, a filter\npattern 500), else 413; headers within 10 s, a request within 30 s, keep-alive 5 s, an idle connection\n30 s, at most 256 connections (docs/review-app.md).\n\nThe runs: /runs lists every run of the ledger newest first (filters by mission, outcome, task type, start\nday; 50 a page), /runs/RUN shows one with its timeline; a running run's page updates as records arrive\n(docs/runs-app.md). `redline serve` lands there after sign-in, `redline review serve` on the queue.",
    );
}
