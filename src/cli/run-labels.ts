import type { Outcome } from '../core/outcome.js';
import type { Output } from './run-command.js';
import { clean } from './terminal-text.js';

/** Exit code per outcome: 0 complete/complete_noop, 1 blocked/failed_with_evidence. */
export const EXIT_FOR_OUTCOME: Readonly<Record<Outcome, number>> = { complete: 0, complete_noop: 0, blocked: 1, failed_with_evidence: 1 };

/** One label per run of a command: the mission id (cleaned), with `#2`, `#3`, … where an id repeats. */
export function labelsOf(missionIds: readonly string[]): string[] {
  const seen = new Map<string, number>();
  return missionIds.map((id) => {
    const count = (seen.get(id) ?? 0) + 1;
    seen.set(id, count);
    return `${clean(id)}${count === 1 ? '' : `#${count}`}`;
  });
}

/**
 * An output whose every line starts with `[label]`, so the lines of concurrent runs stay readable.
 * JSON lines on stdout are left whole (each names its run and mission) when `json` is set.
 */
export function prefixed(label: string, { print, progress }: Output, json: boolean): Output {
  const mark = (text: string): string =>
    text
      .split('\n')
      .map((line) => `[${label}] ${line}`)
      .join('\n');
  return { print: json ? print : (text) => print(mark(text)), progress: (text) => progress(mark(text)) };
}
