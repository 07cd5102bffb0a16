import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type { AttemptSpend } from './spend.js';

/** Bytes of usage lines read in one attempt; past them the log is a bad report. */
const MAX_LOG_BYTES = 16 * 1024 * 1024;

/** What the usage log said by the end of the attempt. */
export interface UsageLogResult {
  /** Lines counted. */
  readonly lines: number;
  /** What was wrong with the log (the first bad line, or its size): the attempt's report cannot be trusted. */
  readonly problem?: string;
}

/** A watched usage log: stop it when the agent has exited, to read its last lines. */
export interface UsageLogWatch {
  stop(): Promise<UsageLogResult>;
}

/** The usage of one line, or why it is not one: `{"inputTokens":N,"outputTokens":N,"costUsd":X}`, each member optional. */
function lineUsage(line: string): { inputTokens?: number; outputTokens?: number; costUsd?: number } | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object';
  const usage: Record<string, number> = {};
  for (const [key, member] of Object.entries(value)) {
    if (!['inputTokens', 'outputTokens', 'costUsd'].includes(key))
      return `has a member ${JSON.stringify(key)} (only inputTokens, outputTokens, costUsd)`;
    const whole = key !== 'costUsd';
    if (typeof member !== 'number' || !Number.isFinite(member) || member < 0 || (whole && !Number.isInteger(member)))
      return `has ${key} ${JSON.stringify(member)}, not a non-negative ${whole ? 'integer' : 'number'}`;
    usage[key] = member;
  }
  return usage;
}

/**
 * Reads the JSON lines an agent appends to its usage log while it runs (every `intervalMs`), adds each to
 * `spend`, and ends the agent through it once a budget is reached: the same enforcement as the meter, for
 * agents that report their own usage. A symlink or anything but a regular file there is not read.
 */
export function watchUsageLog({
  file,
  spend,
  intervalMs = 200,
}: {
  file: string;
  spend: AttemptSpend;
  intervalMs?: number;
}): UsageLogWatch {
  let offset = 0;
  let pending = '';
  let lines = 0;
  let problem: string | undefined;
  let reading: Promise<void> = Promise.resolve();

  const take = (line: string): void => {
    if (line.trim() === '' || problem !== undefined) return;
    const usage = lineUsage(line);
    if (typeof usage === 'string') {
      problem = `line ${lines + 1} of the usage log ${usage}`;
      return;
    }
    lines += 1;
    spend.add(usage);
    const reached = spend.reached;
    if (reached !== undefined) spend.end(reached);
  };

  const read = async (last: boolean): Promise<void> => {
    let handle;
    try {
      handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
    } catch {
      return;
    }
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size <= offset) return;
      if (info.size > MAX_LOG_BYTES) {
        problem ??= `the usage log is over ${MAX_LOG_BYTES} bytes`;
        return;
      }
      const bytes = Buffer.alloc(info.size - offset);
      const { bytesRead } = await handle.read(bytes, 0, bytes.length, offset);
      offset += bytesRead;
      pending += bytes.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
    const complete = pending.split('\n');
    pending = complete.pop() ?? '';
    for (const line of complete) take(line);
    if (last) take(pending);
  };

  const timer = setInterval(() => {
    // A read that fails (the file replaced meanwhile) is tried again at the next tick.
    reading = reading.then(() => read(false)).catch(() => undefined);
  }, intervalMs);
  return {
    async stop() {
      clearInterval(timer);
      await reading;
      await read(true);
      return { lines, ...(problem === undefined ? {} : { problem }) };
    },
  };
}
