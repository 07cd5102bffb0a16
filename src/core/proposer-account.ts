// What a proposer program said of its own attempt, kept in the attempt record (docs/agents.md, "The agent's
// account"), and the words the loop, the brief, the CLI and the web app use for it. Every text in it is the
// program's own output: untrusted, shown only through the escaping of its reader.

import { meterLine, type MeterAccount } from './model-call.js';

/** The end of what a program wrote to one stream or file: its last bytes, cut on a UTF-8 character boundary. */
export interface OutputTail {
  /** The last bytes, as text. */
  readonly text: string;
  /** Bytes before `text` that were not kept; 0 when `text` is all there was. */
  readonly droppedBytes: number;
}

/** How a proposer program's attempt went, from the outside: its status, time and the tails of what it wrote. */
export interface ProposerAccount {
  /** The proposer that ran it: `agent` or `command`. */
  readonly kind: string;
  /** The exit code, when the program exited on its own. */
  readonly exitCode?: number;
  /** The signal that ended it, when one did. */
  readonly signal?: string;
  /**
   * Why the runtime ended it, when it did: `budget` when its spend reached the run's token or cost budget,
   * `environment` when its output showed its model endpoint out of reach or its key refused.
   */
  readonly killed?: 'timeout' | 'output_cap' | 'aborted' | 'budget' | 'environment';
  /** Why it could not be started at all. */
  readonly spawnError?: string;
  /** Wall-clock time it ran, in whole milliseconds. */
  readonly durationMs: number;
  readonly stdout: OutputTail;
  readonly stderr: OutputTail;
  /** The end of the file an agent wrote at `$REDLINE_TRANSCRIPT`, when it wrote one. */
  readonly transcript?: OutputTail;
  /** The model calls of an agent run behind a metering endpoint (docs/metering.md). */
  readonly meter?: MeterAccount;
}

/** The proposer as a sentence names it: agents (run by redline or submitting over MCP) are "the agent". */
export function proposerNoun(kind: string | undefined): string {
  return kind === 'agent' || kind === 'mcp' ? 'the agent' : 'the proposer';
}

/** `840 ms`, `3.1 s`. */
function durationWords(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** `340 B`, `12.0 KiB`, `1.2 MiB`. */
function bytesWords(count: number): string {
  if (count < 1024) return `${count} B`;
  return count < 1024 * 1024 ? `${(count / 1024).toFixed(1)} KiB` : `${(count / 1024 / 1024).toFixed(1)} MiB`;
}

/** How much of a stream a tail kept: `340 B`, `64.0 KiB (1.2 MiB before it dropped)`. */
export function tailSize(tail: OutputTail): string {
  const kept = bytesWords(Buffer.byteLength(tail.text));
  return tail.droppedBytes === 0 ? kept : `${kept} (${bytesWords(tail.droppedBytes)} before it dropped)`;
}

/** How the program ended and how long it ran: `exit 0, 3.1 s`, `killed by SIGKILL, 2 ms`, `timed out, 600.0 s`. */
export function accountStatus(account: ProposerAccount): string {
  const took = durationWords(account.durationMs);
  if (account.spawnError !== undefined) return `could not start: ${account.spawnError}`;
  if (account.killed === 'timeout') return `timed out, ${took}`;
  if (account.killed === 'output_cap') return `killed at its output cap, ${took}`;
  if (account.killed === 'aborted') return `stopped with the run, ${took}`;
  if (account.killed === 'budget') return `ended at the spend budget, ${took}`;
  if (account.killed === 'environment') return `ended on a failure of its environment, ${took}`;
  if (account.signal !== undefined) return `killed by ${account.signal}, ${took}`;
  return `exit ${account.exitCode ?? '?'}, ${took}`;
}

/** Characters of one shown line of a tail; the account keeps the whole tail. */
const LINE_CHARS = 300;

/** The last `count` non-empty lines of a tail, each cut to a readable length. */
export function lastLines(tail: OutputTail | undefined, count: number): string[] {
  if (tail === undefined) return [];
  const lines = tail.text.split(/\r?\n/).filter((line) => line.trim() !== '');
  return lines.slice(-count).map((line) => (line.length > LINE_CHARS ? `${line.slice(0, LINE_CHARS)}…` : line));
}

/**
 * One clause on what the program wrote last, for a finding's message: `its last stderr: …`, else the last
 * line of its transcript, else that it wrote nothing on stderr.
 */
export function lastWords(account: ProposerAccount): string {
  const [stderr] = lastLines(account.stderr, 1);
  if (stderr !== undefined) return `its last stderr: ${stderr}`;
  const [transcript] = lastLines(account.transcript, 1);
  return transcript === undefined ? 'it wrote nothing on stderr' : `its transcript ends: ${transcript}`;
}

/** Lines of stderr and of the transcript {@link accountText} shows. */
const ACCOUNT_LINES = 10;

/**
 * The account as a few lines of text, for a brief: who, how it ended, its model calls through a meter, and the last lines of its stderr and
 * of its transcript (each labelled; streams it left empty are left out).
 */
export function accountText(account: ProposerAccount): string {
  const parts = [`${proposerNoun(account.kind)}: ${accountStatus(account)}`];
  if (account.meter !== undefined) parts.push(meterLine(account.meter));
  for (const [label, tail] of [
    ['stderr', account.stderr],
    ['transcript', account.transcript],
  ] as const) {
    const lines = lastLines(tail, ACCOUNT_LINES);
    if (lines.length > 0) parts.push(`last lines of its ${label}:`, ...lines.map((line) => `  ${line}`));
  }
  return parts.join('\n');
}
