import { z } from 'zod';
import { runProcess } from '../process/run-process.js';
import { checkSandbox, type CheckContext } from '../core/check.js';
import type { ScoreFunction, ScoreResult } from './score-check.js';

const replySchema = z.object({
  score: z.number().min(0).max(1),
  findings: z.array(z.object({ reasonCode: z.string().min(1), message: z.string() })).default([]),
});

/**
 * A score judge run as a program: it gets `{"protocol":"redline.judge/1","goal":…,"candidate":{"files":…,"value":…}}`
 * on stdin and prints `{"score":0..1,"findings":[{"reasonCode":…,"message":…}]}`.
 */
export function commandScore({
  command,
  cwd,
  timeoutMs = 60_000,
  outputCap = 1_048_576,
}: {
  command: string | readonly string[];
  cwd: string;
  timeoutMs?: number;
  outputCap?: number;
}): ScoreFunction {
  return async (context: CheckContext): Promise<ScoreResult> => {
    const { goal, candidate, dir, signal } = context;
    const input = JSON.stringify({
      protocol: 'redline.judge/1',
      goal,
      candidate: { files: candidate.files, value: candidate.value ?? null },
    });
    const result = await runProcess({ command, cwd: dir ?? cwd, input, timeoutMs, outputCap, signal, ...checkSandbox(context) });
    if (result.spawnError !== undefined) throw new Error(`could not start the judge: ${result.spawnError}`);
    if (result.killed !== undefined) throw new Error(`judge killed (${result.killed})`);
    if (result.exitCode !== 0) throw new Error(`judge exited ${result.exitCode}: ${result.stderr.trim().slice(0, 200)}`);
    let data: unknown;
    try {
      data = JSON.parse(result.stdout);
    } catch {
      throw new Error(`judge printed no JSON: ${result.stdout.trim().slice(0, 200)}`);
    }
    const reply = replySchema.safeParse(data);
    if (!reply.success)
      throw new Error(
        `judge reply: ${reply.error.issues.map((issue) => `${issue.path.join('.') || '(root)'} ${issue.message}`).join('; ')}`,
      );
    return { score: reply.data.score, notes: reply.data.findings };
  };
}
