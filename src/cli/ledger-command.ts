import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Finding } from '../core/finding.js';
import { spentWords } from '../core/model-call.js';
import { exportJsonl, importJsonl } from '../ledger/export.js';
import type { Ledger, RunRecord, StoredRecord } from '../ledger/ledger.js';
import { parseRunRecord, type StartedData } from '../ledger/run-records.js';
import { RecordParseError } from '../errors/record-parse-error.js';
import { checkDigest, ledgerDigest, parseDigest } from '../ledger/ledger-digest.js';
import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { localPublicKeys, openSigner, readPublicKey } from '../ledger/signing-key.js';
import { readRun, streamRuns } from '../ledger/history.js';
import { lineage } from '../ledger/lineage.js';
import { verifyLedger, verifySignedRun, type LedgerVerification, type RunVerification, type SignatureOptions } from '../ledger/verify.js';
import { storedJournalPrefix, verifyStoredJournal } from '../review/open-review-queue.js';
import type { JournalVerification } from '../review/journal.js';
import { preJournalNotes } from '../review/pre-journal.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';
import { inventoryLine, snapshotHow } from './format.js';
import { accountLines } from './account-lines.js';

/**
 * Opens the ledger a command names (flag, environment, or `.redline/redline.db` here) for `work`. Unless
 * the command `writes`, the ledger must exist and is opened read-only: a mistyped path is an error, not a
 * new empty ledger.
 */
export async function withLedger<T>(
  explicit: string | undefined,
  work: (ledger: Ledger, name: string) => Promise<T>,
  { writes = false }: { writes?: boolean } = {},
): Promise<T> {
  const location = ledgerLocation(explicit, process.cwd());
  const ledger = await openLedger(location, { readOnly: !writes });
  try {
    return await work(ledger, displayLocation(location));
  } finally {
    await ledger.close();
  }
}

/**
 * The keys `verify` and `show` check seals with, and how they were found (for the summary line). Keys
 * given with `--public-key` require every seal to be signed by one of them, unless `allowUnsigned` (a
 * ledger with runs sealed before signing): otherwise stripping a seal's signature and recomputing the
 * hashes would pass as an older, unsigned run.
 */
async function signatureOptions(
  publicKey: readonly string[] | undefined,
  location: string,
  { requireSignatures, allowUnsigned }: { requireSignatures: boolean; allowUnsigned: boolean },
): Promise<{ options: SignatureOptions; from: string }> {
  if (requireSignatures && allowUnsigned) throw new TypeError('Expected --require-signatures or --allow-unsigned, got both');
  if (publicKey !== undefined && publicKey.length > 0) {
    const keys = await Promise.all(publicKey.map((file) => readPublicKey(file)));
    return { options: { keys, require: !allowUnsigned }, from: keys.map((key) => `${key.source} (key ${key.keyId})`).join(', ') };
  }
  const { keys, dir } = await localPublicKeys({ location });
  if (keys.length === 0 && requireSignatures)
    throw new TypeError(`Expected --public-key FILE with --require-signatures, got none (and no signing-key*.pub in ${dir})`);
  // Keys found locally are this machine's: runs sealed elsewhere are reported, not failed, unless signatures are required.
  return {
    options: { keys, require: requireSignatures, allowOtherKeys: true },
    from:
      keys.length === 0
        ? `no public key given and none in ${dir}`
        : `the local key(s) ${keys.map((key) => `${key.source} (key ${key.keyId})`).join(', ')}`,
  };
}

/**
 * What `verify` says about the seal signatures of the runs: how many verified, with which keys, and what
 * was not checked; nothing when no run is sealed.
 */
function signatureSummary({ runs, signatures, otherKeys }: LedgerVerification, from: string): string {
  if (runs === signatures.unsealed) return '';
  const parts = [
    `${signatures.valid} valid`,
    `${signatures.invalid} invalid`,
    `${signatures.unsigned} unsigned`,
    ...(otherKeys.length === 0 ? [] : [`${signatures.unknown_key} signed by another key (${otherKeys.join(', ')})`]),
  ];
  return `; seal signatures: ${parts.join(', ')} — checked with ${from}`;
}

/**
 * What `verify` says about the journal entries' signatures, as for seals. An unsigned entry proves
 * nothing by itself; a valid signed entry after it does, its signature covering every entry before it.
 */
function entrySignatureSummary(
  { records, signatures }: JournalVerification,
  { options, from }: { options: SignatureOptions; from: string },
): string {
  // Nothing to say of a journal nothing signed when there is no key to check it with.
  if (signatures === undefined || records === 0 || (options.keys.length === 0 && signatures.counts.unsigned === records)) return '';
  const { counts, otherKeys } = signatures;
  const parts = [
    `${counts.valid} valid`,
    `${counts.invalid} invalid`,
    `${counts.unsigned} unsigned`,
    ...(otherKeys.length === 0 ? [] : [`${counts.unknown_key} signed by another key (${otherKeys.join(', ')})`]),
  ];
  return `; entry signatures: ${parts.join(', ')} — checked with ${from}`;
}

/** Why a run does not verify: its first bad record, or its seal's signature. */
function whyBroken(result: RunVerification): string {
  if (result.firstBad !== undefined) return `record ${result.firstBad.seq} ${result.firstBad.problem} — ${result.firstBad.detail}`;
  if (result.signatureProblem !== undefined) return `seal signature — ${result.signatureProblem}`;
  if (result.recordProblem !== undefined) return result.recordProblem;
  return result.linkProblem !== undefined ? `link — ${result.linkProblem}` : `derived data — ${result.summaryProblem}`;
}

/** The line `verify` prints for a run that does not verify. */
function brokenLine(result: RunVerification): string {
  return clean(`BROKEN run ${result.runId}: ${whyBroken(result)}`);
}

/**
 * `redline ledger verify`: every run's chain and seal signature, the ledger's history against a digest
 * taken earlier (`--against`), and, when the ledger holds a review queue, the queue's journal; exit 1
 * naming the run (or the journal), the first bad record and why, when anything does not verify.
 */
export async function verifyCommand(
  {
    run,
    json = false,
    ledger,
    publicKey,
    requireSignatures = false,
    allowUnsigned = false,
    against,
  }: {
    run?: string;
    json?: boolean;
    ledger?: string;
    publicKey?: string[];
    requireSignatures?: boolean;
    allowUnsigned?: boolean;
    against?: string;
  },
  { print }: Output,
): Promise<number> {
  const location = ledgerLocation(ledger, process.cwd());
  if (against !== undefined && run !== undefined)
    throw new TypeError('Expected --against without --run (a digest covers the whole ledger), got both');
  if (against !== undefined) parseDigest(against);
  const signatures = await signatureOptions(publicKey, location, { requireSignatures, allowUnsigned });
  const runsOk = await withLedger(ledger, async (open, name) => {
    // Each run's line is printed as it is verified: only the totals are kept.
    const totals = await verifyLedger(open, {
      ...(run === undefined ? {} : { runId: run }),
      signatures: signatures.options,
      maxProblems: 0,
      onRun: (result) => {
        if (json) print(jsonLine(result));
        else if (!result.ok) print(brokenLine(result));
      },
    });
    if (run !== undefined && totals.runs === 0) throw new TypeError(`Expected run ${run} in ${name}, got no such run`);
    if (!json)
      print(
        clean(
          `${totals.runs - totals.broken} of ${totals.runs} runs verify (${totals.records} records) in ${name}${signatureSummary(totals, signatures.from)}`,
        ),
      );
    if (against === undefined) return totals.ok;
    const { journal: entries } = parseDigest(against);
    const journal = entries === undefined ? undefined : await storedJournalPrefix(location, entries);
    const head = await checkDigest(streamRuns(open), against, journal);
    if (json) print(jsonLine({ against, ...head }));
    else print(`${head.ok ? 'ledger head matches' : 'BROKEN ledger head'} ${against}: ${head.detail}`);
    return totals.ok && head.ok;
  });
  if (run !== undefined) return runsOk ? 0 : 1;
  const journal = await verifyStoredJournal(location, signatures.options);
  if (journal === undefined) return runsOk ? 0 : 1;
  const signed = journal.signatures;
  if (json) print(JSON.stringify({ journal: 'review', ...journal }));
  else if (journal.ok)
    print(
      clean(
        `review queue journal verifies (${journal.records} ${journal.records === 1 ? 'entry' : 'entries'})${entrySignatureSummary(journal, signatures)}`,
      ),
    );
  else if (journal.disagreement !== undefined)
    print(`BROKEN review queue: ${journal.disagreement.table} disagrees with the journal — ${clean(journal.disagreement.detail)}`);
  else if (signed?.problem !== undefined)
    print(clean(`BROKEN review queue journal: entry ${signed.problem.seq} signature — ${signed.problem.detail}`));
  else if (journal.entryProblem !== undefined) print(`BROKEN review queue journal: ${clean(journal.entryProblem)}`);
  else print(`BROKEN review queue journal: entry ${journal.firstBad?.seq} ${journal.firstBad?.problem} — ${journal.firstBad?.detail}`);
  // Rows of a queue created before its journal existed: accepted, and said to be unproven.
  if (!json) for (const note of preJournalNotes(journal.preJournal)) print(`review queue: ${note}`);
  return runsOk && journal.ok ? 0 : 1;
}

/** `redline ledger head`: the ledger's digest, to publish or keep elsewhere and check later with `verify --against`. */
export async function headCommand(
  { ledger, json = false }: { ledger?: string; json?: boolean },
  { print, progress }: Output,
): Promise<number> {
  const location = ledgerLocation(ledger, process.cwd());
  return withLedger(ledger, async (open, name) => {
    const head = await ledgerDigest(streamRuns(open), await storedJournalPrefix(location));
    if (json) print(jsonLine(head));
    else {
      print(head.digest);
      const rest =
        head.firstUnsealed === undefined
          ? ''
          : `; run ${head.firstUnsealed} is not sealed yet: it and the runs after it are left to a later head`;
      progress(
        clean(
          `covers the first ${head.count} of ${head.total} run(s) in ${name}, in start order, and the ${head.journal} review journal entries${rest}`,
        ),
      );
    }
    return 0;
  });
}

function findingLine(item: Finding): string {
  const where =
    item.location?.file === undefined ? '' : ` (${item.location.file}${item.location.line === undefined ? '' : `:${item.location.line}`})`;
  return `      ${item.status.padEnd(7)} ${item.check}: ${item.reasonCodes.join(', ') || item.message.split('\n')[0]}${where}`;
}

/** What a `run.started` record says of the run's plan, the run it resolves and a same-plan refusal it overrode. */
function linkStory({ plan, resolves, samePlanForced: forced }: StartedData): string[] {
  return [
    ...(plan === undefined
      ? []
      : [
          `  plan ${plan.hash.slice(0, 12)}… (mission + ${plan.proposer.kind} proposer ${plan.proposer.label === true ? `labelled ${plan.proposer.name}` : plan.proposer.name})`,
        ]),
    ...(resolves === undefined
      ? []
      : [
          `  resolves run ${resolves.runId} (${String(resolves.outcome)} / ${String(resolves.stopReason)})${resolves.note === undefined ? '' : `: ${resolves.note.split('\n')[0]}`}`,
        ]),
    ...(forced === undefined ? [] : [`  same plan as run ${forced.runId} (${String(forced.stopReason)}), run with --force-same-plan`]),
  ];
}

/** The lines of one record, for people. */
function recordStory(record: RunRecord): string[] {
  switch (record.type) {
    case 'run.started': {
      const { data } = record;
      const { mission, workspace } = data;
      const lines = [
        `run ${record.runId} — mission ${mission.id} (${mission.taskType}), started ${new Date(record.at).toISOString()}`,
        `  goal: ${String(mission.goal).split('\n')[0]}`,
        `  proposer ${String(data.proposer)}, judge ${String(data.judge)}, guards ${(data.guards ?? []).join(', ')}`,
        ...linkStory(data),
      ];
      if (workspace !== undefined) {
        const links =
          workspace.linksOutside === undefined
            ? ''
            : `; ${workspace.linksOutside.count} symlink(s) lead outside it: ${workspace.linksOutside.paths.join(', ')}`;
        lines.push(
          `  snapshot ${workspace.manifest.slice(0, 12)}…: ${workspace.entries} entries${snapshotHow(workspace)}${workspace.snapshotMs === undefined ? '' : `, taken in ${workspace.snapshotMs} ms`}${data.sandbox === undefined ? '' : `, sandbox ${JSON.stringify(data.sandbox)}`}${links}`,
        );
      }
      return lines;
    }
    case 'run.resumed':
      return [`  resumed after record ${record.data.fromSeq}`];
    case 'baseline':
      return [
        '  baseline:',
        ...Object.entries(record.data.inventories ?? {}).map(([check, inventory]) => `    ${check}: ${inventoryLine(inventory)}`),
        ...record.data.findings.map(findingLine),
      ];
    case 'attempt': {
      const { candidate, summary, isolation, findings = [], account } = record.data;
      const reset =
        isolation === undefined
          ? ''
          : `; copy reset in ${isolation.resetMs} ms (${isolation.scanned} paths compared, ${isolation.restored} restored)`;
      return [
        `  attempt ${record.data.attempt}: ${summary?.noChange === true ? 'changed nothing, no check ran' : `changes ${candidate?.footprint.join(', ') || '(nothing)'}`}; ${summary?.progress === true ? 'progress' : 'no progress'}; state ${String(summary?.signature.slice(0, 8))}${reset}`,
        ...findings.map(findingLine),
        ...(account === undefined ? [] : accountLines(account, '    ')),
      ];
    }
    case 'decision': {
      const { verdict, decision, rejection, overridden } = record.data;
      return [
        ...(verdict === undefined ? [] : [`    guard ${verdict.guard}: ${verdict.reason} — ${verdict.detail}`]),
        ...(decision === undefined
          ? []
          : [`    decision: ${decision.transition} (${decision.reason})${overridden === true ? ' — overridden by the stop verdict' : ''}`]),
        ...(rejection === undefined ? [] : [`    decision REJECTED: ${rejection.code} — ${rejection.message}`]),
      ];
    }
    case 'run.sealed': {
      const { data } = record;
      const spent = data.counters === undefined ? undefined : spentWords(data.counters);
      return [
        `sealed ${data.outcome} / ${data.verification} / ${data.stopReason} after ${String(data.attempts)} attempt(s): ${String(data.detail).split('\n')[0]}`,
        ...(spent === undefined ? [] : [`  spent ${spent}`]),
        ...(data.evidence ?? []).map(
          (item) =>
            `  evidence ${item.code}${item.count === undefined ? '' : ` (${item.count} path(s))`}: ${item.paths?.join(', ') ?? item.message ?? ''}`,
        ),
        ...(data.shadow === undefined
          ? []
          : [
              `  shadow ${data.shadow.verdict} (held-out checks, not seen by the loop)`,
              ...data.shadow.findings
                .filter((item) => item.status !== 'pass')
                .map((item) => `    ${item.status} ${item.check}: ${item.message.split('\n')[0]}`),
            ]),
      ];
    }
  }
}

/**
 * The story of one run, record by record, for people, from its records as stored. A record that does not
 * parse (the warning above the story says whether the run verifies) is named with what is wrong with it.
 */
export function story(rows: readonly StoredRecord[]): string[] {
  return rows.flatMap((row) => {
    try {
      return recordStory(parseRunRecord(row));
    } catch (error) {
      if (!(error instanceof RecordParseError)) throw error;
      return [`  ${error.message}`];
    }
  });
}

/** Records as stored, each as the JSON it holds; a row that is not JSON (the warning names it) is left out. */
function storedJson(rows: readonly StoredRecord[]): unknown[] {
  return rows.flatMap((row) => {
    try {
      return [JSON.parse(row.body)];
    } catch {
      return [];
    }
  });
}

/** The one-line warning `show` prints above a run that does not verify, or undefined when it does. */
function showWarning(result: RunVerification): string | undefined {
  if (result.ok) return undefined;
  return `WARNING: run ${result.runId} does not verify (${whyBroken(result)}); what follows may have been altered`;
}

/** `redline ledger show --lineage`: the chain of linked runs a run belongs to, one line (or JSON line) each. */
async function showLineage(open: Ledger, name: string, runId: string, json: boolean, { print }: Output): Promise<number> {
  const entries = await lineage(open, runId);
  if (entries === undefined) throw new TypeError(`Expected run ${clean(runId)} in ${clean(name)}, got no such run`);
  for (const { run, depth, resolves, note } of entries) {
    if (json) {
      print(
        jsonLine({
          runId: run.runId,
          depth,
          ...(resolves === undefined ? {} : { resolves }),
          ...(note === undefined ? {} : { note }),
          missionId: run.missionId,
          startedAt: run.startedAt,
          sealed: run.sealed,
          ...(run.outcome === undefined ? {} : { outcome: run.outcome }),
          ...(run.stopReason === undefined ? {} : { stopReason: run.stopReason }),
          ...(run.planHash === undefined ? {} : { planHash: run.planHash }),
        }),
      );
      continue;
    }
    const ended = run.sealed ? `${run.outcome} / ${run.stopReason}` : 'not sealed';
    const plan = run.planHash === undefined ? '' : `, plan ${run.planHash.slice(0, 12)}…`;
    print(
      clean(
        `${'  '.repeat(depth)}${depth === 0 ? '' : '└ '}run ${run.runId}${run.runId === runId ? ' ◀' : ''} — ${ended}, started ${new Date(run.startedAt).toISOString()}${plan}${note === undefined ? '' : ` — ${note.split('\n')[0]}`}`,
      ),
    );
  }
  if (!json) print(clean(`${entries.length} run(s) in the lineage of run ${runId}, mission ${entries[0]?.run.missionId ?? ''}`));
  return 0;
}

export async function showCommand(
  runId: string,
  { ledger, json = false, publicKey, lineage: chain = false }: { ledger?: string; json?: boolean; publicKey?: string[]; lineage?: boolean },
  output: Output,
): Promise<number> {
  const { print, progress } = output;
  const location = ledgerLocation(ledger, process.cwd());
  if (chain) return withLedger(ledger, (open, name) => showLineage(open, name, runId, json, output));
  const signatures = await signatureOptions(publicKey, location, { requireSignatures: false, allowUnsigned: false });
  return withLedger(ledger, async (open, name) => {
    const [listed] = await open.runs({ runId });
    const snapshot = listed === undefined ? undefined : await readRun(open, listed);
    if (snapshot === undefined || snapshot.records.length === 0)
      throw new TypeError(`Expected run ${clean(runId)} in ${clean(name)}, got no such run`);
    const warning = showWarning(verifySignedRun(snapshot.run, snapshot.records, signatures.options));
    // With --json stdout stays JSON lines: the warning goes to stderr.
    if (warning !== undefined) (json ? progress : print)(clean(warning));
    // Records hold agent text (file names, test names, messages): every line is made safe for the terminal.
    for (const line of json ? storedJson(snapshot.records).map((record) => jsonLine(record)) : story(snapshot.records))
      print(json ? line : clean(line));
    // The link the other way: the runs that resolve this one (their own run.started names it).
    if (!json)
      for (const linked of await open.runs({ resolves: runId }))
        print(
          clean(
            `resolved by run ${linked.runId} — ${linked.sealed ? `${linked.outcome} / ${linked.stopReason}` : 'not sealed yet'} (redline ledger show --lineage ${runId})`,
          ),
        );
    return 0;
  });
}

export async function exportCommand(
  { ledger, run, out, format }: { ledger?: string; run?: string; out?: string; format: string },
  { print }: Output,
): Promise<number> {
  if (format !== 'jsonl') throw new TypeError(`Expected --format jsonl, got ${format}`);
  return withLedger(ledger, async (open) => {
    const stream = out === undefined ? undefined : createWriteStream(out);
    for await (const line of exportJsonl(open, run === undefined ? {} : { runId: run })) {
      if (stream === undefined) print(line);
      else if (!stream.write(`${line}\n`)) await once(stream, 'drain');
    }
    if (stream !== undefined)
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return 0;
  });
}

export async function importCommand(file: string, { ledger }: { ledger?: string }, { print }: Output): Promise<number> {
  return withLedger(
    ledger,
    async (open, name) => {
      const lines = createInterface({ input: file === '-' ? process.stdin : createReadStream(file), crlfDelay: Infinity });
      const imported = await importJsonl(open, lines);
      print(`imported ${imported.length} run(s) into ${name}`);
      return 0;
    },
    { writes: true },
  );
}

export async function recoverCommand(
  { ledger, resume = true, json = false, signingKey }: { ledger?: string; resume?: boolean; json?: boolean; signingKey?: string },
  output: Output,
): Promise<number> {
  const { print } = output;
  const location = ledgerLocation(ledger, process.cwd());
  // Recovery resumes runs: the loop is loaded only here, so the other ledger commands start without it.
  const { recoverWithQueue } = await import('./run-command.js');
  return withLedger(
    ledger,
    async (open, name) => {
      const { signer } = await openSigner({ explicit: signingKey, location });
      const recoveries = await recoverWithQueue({ ledger: open, location, resume, output, signer });
      for (const recovery of recoveries)
        print(
          json
            ? jsonLine({ runId: recovery.runId, action: recovery.action, detail: recovery.detail })
            : `${clean(recovery.runId)}: ${recovery.action.replace('_', ' ')} (${clean(recovery.detail)})`,
        );
      if (!json) print(`${recoveries.length} unsealed run(s) found in ${clean(name)}`);
      return 0;
    },
    { writes: true },
  );
}
