import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import type { Finding } from '../checks/finding.js';
import { exportJsonl, importJsonl } from '../ledger/export.js';
import type { Ledger, LedgerRecord } from '../ledger/ledger.js';
import { displayLocation, ledgerLocation, openLedger } from '../ledger/open-ledger.js';
import { verifyLedger } from '../ledger/verify.js';
import { verifyStoredJournal } from '../review/open-review-queue.js';
import type { Output } from './run-command.js';
import { clean, jsonLine } from './terminal-text.js';

/** Opens the ledger a command names (flag, environment, or `.redline/redline.db` here) for `work`. */
export async function withLedger<T>(explicit: string | undefined, work: (ledger: Ledger, name: string) => Promise<T>): Promise<T> {
  const location = ledgerLocation(explicit, process.cwd());
  const ledger = await openLedger(location);
  try {
    return await work(ledger, displayLocation(location));
  } finally {
    await ledger.close();
  }
}

/**
 * `redline ledger verify`: every run's chain and, when the ledger holds a review queue, the queue's
 * journal; exit 1 naming the run (or the journal), the first bad record and why, when a chain is broken.
 */
export async function verifyCommand({ run, json = false, ledger }: { run?: string; json?: boolean; ledger?: string }, { print }: Output): Promise<number> {
  const location = ledgerLocation(ledger, process.cwd());
  const runsOk = await withLedger(ledger, async (open, name) => {
    const results = await verifyLedger(open, run === undefined ? {} : { runId: run });
    if (run !== undefined && results.length === 0) throw new TypeError(`Expected run ${run} in ${name}, got no such run`);
    const broken = results.filter((result) => !result.ok);
    if (json) for (const result of results) print(JSON.stringify(result));
    else {
      for (const result of broken) print(`BROKEN run ${result.runId}: record ${result.firstBad?.seq} ${result.firstBad?.problem} — ${result.firstBad?.detail}`);
      const records = results.reduce((sum, result) => sum + result.records, 0);
      print(`${results.length - broken.length} of ${results.length} runs verify (${records} records) in ${name}`);
    }
    return broken.length === 0;
  });
  if (run !== undefined) return runsOk ? 0 : 1;
  const journal = await verifyStoredJournal(location);
  if (journal === undefined) return runsOk ? 0 : 1;
  if (json) print(JSON.stringify({ journal: 'review', ...journal }));
  else if (journal.ok) print(`review queue journal verifies (${journal.records} ${journal.records === 1 ? 'entry' : 'entries'})`);
  else print(`BROKEN review queue journal: entry ${journal.firstBad?.seq} ${journal.firstBad?.problem} — ${journal.firstBad?.detail}`);
  return runsOk && journal.ok ? 0 : 1;
}

function findingLine(item: Finding): string {
  const where = item.location?.file === undefined ? '' : ` (${item.location.file}${item.location.line === undefined ? '' : `:${item.location.line}`})`;
  return `      ${item.status.padEnd(7)} ${item.check}: ${item.reasonCodes.join(', ') || item.message.split('\n')[0]}${where}`;
}

/** The story of one run, record by record, for people. */
export function story(records: readonly LedgerRecord[]): string[] {
  const lines: string[] = [];
  for (const record of records) {
    const data = record.data as Record<string, unknown>;
    switch (record.type) {
      case 'run.started': {
        const mission = data.mission as { id: string; goal: string; taskType: string };
        lines.push(`run ${record.runId} — mission ${mission.id} (${mission.taskType}), started ${new Date(record.at).toISOString()}`, `  goal: ${mission.goal.split('\n')[0]}`, `  proposer ${String(data.proposer)}, judge ${String(data.judge)}, guards ${(data.guards as string[]).join(', ')}`);
        const workspace = data.workspace as { manifest: string; entries: number; snapshotMs?: number; linksOutside?: { count: number; paths: string[] } } | undefined;
        if (workspace !== undefined) {
          const links = workspace.linksOutside === undefined ? '' : `; ${workspace.linksOutside.count} symlink(s) lead outside it: ${workspace.linksOutside.paths.join(', ')}`;
          lines.push(`  snapshot ${workspace.manifest.slice(0, 12)}…: ${workspace.entries} entries${workspace.snapshotMs === undefined ? '' : `, taken in ${workspace.snapshotMs} ms`}${data.sandbox === undefined ? '' : `, sandbox ${JSON.stringify(data.sandbox)}`}${links}`);
        }
        break;
      }
      case 'run.resumed':
        lines.push(`  resumed after record ${String(data.fromSeq)}`);
        break;
      case 'baseline':
        lines.push('  baseline:', ...(data.findings as Finding[]).map(findingLine));
        break;
      case 'attempt': {
        const candidate = data.candidate as { footprint: string[] };
        const summary = data.summary as { progress: boolean; signature: string };
        const isolation = data.isolation as { resetMs: number; scanned: number; restored: number } | undefined;
        const reset = isolation === undefined ? '' : `; copy reset in ${isolation.resetMs} ms (${isolation.scanned} paths compared, ${isolation.restored} restored)`;
        lines.push(`  attempt ${String(data.attempt)}: changes ${candidate.footprint.join(', ') || '(nothing)'}; ${summary.progress ? 'progress' : 'no progress'}; state ${summary.signature.slice(0, 8)}${reset}`, ...(data.findings as Finding[]).map(findingLine));
        break;
      }
      case 'decision': {
        const verdict = data.verdict as { guard: string; reason: string; detail: string } | undefined;
        const decision = data.decision as { transition: string; reason: string } | undefined;
        const rejection = data.rejection as { code: string; message: string } | undefined;
        if (verdict !== undefined) lines.push(`    guard ${verdict.guard}: ${verdict.reason} — ${verdict.detail}`);
        if (decision !== undefined) lines.push(`    decision: ${decision.transition} (${decision.reason})${data.overridden === true ? ' — overridden by the stop verdict' : ''}`);
        if (rejection !== undefined) lines.push(`    decision REJECTED: ${rejection.code} — ${rejection.message}`);
        break;
      }
      case 'run.sealed':
        lines.push(`sealed ${String(data.outcome)} / ${String(data.verification)} / ${String(data.stopReason)} after ${String(data.attempts)} attempt(s): ${String(data.detail).split('\n')[0]}`);
        for (const item of (data.evidence ?? []) as { code: string; count?: number; paths?: string[]; message?: string }[]) {
          lines.push(`  evidence ${item.code}${item.count === undefined ? '' : ` (${item.count} path(s))`}: ${item.paths?.join(', ') ?? item.message ?? ''}`);
        }
        break;
    }
  }
  return lines;
}

export async function showCommand(runId: string, { ledger, json = false }: { ledger?: string; json?: boolean }, { print }: Output): Promise<number> {
  return withLedger(ledger, async (open, name) => {
    const records = await open.records(runId);
    if (records.length === 0) throw new TypeError(`Expected run ${runId} in ${name}, got no such run`);
    // Records hold agent text (file names, test names, messages): every line is made safe for the terminal.
    for (const line of json ? records.map((record) => jsonLine(record)) : story(records)) print(json ? line : clean(line));
    return 0;
  });
}

export async function exportCommand({ ledger, run, out, format }: { ledger?: string; run?: string; out?: string; format: string }, { print }: Output): Promise<number> {
  if (format !== 'jsonl') throw new TypeError(`Expected --format jsonl, got ${format}`);
  return withLedger(ledger, async (open) => {
    const stream = out === undefined ? undefined : createWriteStream(out);
    for await (const line of exportJsonl(open, run === undefined ? {} : { runId: run })) {
      if (stream === undefined) print(line);
      else if (!stream.write(`${line}\n`)) await once(stream, 'drain');
    }
    if (stream !== undefined) await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
    return 0;
  });
}

export async function importCommand(file: string, { ledger }: { ledger?: string }, { print }: Output): Promise<number> {
  return withLedger(ledger, async (open, name) => {
    const lines = createInterface({ input: file === '-' ? process.stdin : createReadStream(file), crlfDelay: Infinity });
    const imported = await importJsonl(open, lines);
    print(`imported ${imported.length} run(s) into ${name}`);
    return 0;
  });
}

export async function recoverCommand({ ledger, resume = true, json = false }: { ledger?: string; resume?: boolean; json?: boolean }, output: Output): Promise<number> {
  const { print } = output;
  const location = ledgerLocation(ledger, process.cwd());
  // Recovery resumes runs: the loop is loaded only here, so the other ledger commands start without it.
  const { recoverWithQueue } = await import('./run-command.js');
  return withLedger(ledger, async (open, name) => {
    const recoveries = await recoverWithQueue({ ledger: open, location, resume, output });
    for (const recovery of recoveries) print(json ? JSON.stringify({ runId: recovery.runId, action: recovery.action, detail: recovery.detail }) : `${recovery.runId}: ${recovery.action.replace('_', ' ')} (${recovery.detail})`);
    if (!json) print(`${recoveries.length} unsealed run(s) found in ${name}`);
    return 0;
  });
}
