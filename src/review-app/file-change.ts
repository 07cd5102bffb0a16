import { BASELINE_FILE_BYTES, type OmittedReason } from '../core/brief-baseline.js';
import type { ReviewItem } from '../review/types.js';
import { unifiedDiff } from '../workspace/unified-diff.js';

/** How the brief shows one changed file: as a diff against the file before the run, or whole (and why). */
export type FileChange =
  { readonly kind: 'diff'; readonly diff: string; readonly before: string | null } | { readonly kind: 'whole'; readonly why?: string };

const KIB = 1024;
/**
 * Lines of either side of a file the page diffs: past it the file is shown whole. The diff's cost grows
 * with lines: at 5,000 a side the worst cases measured (every line changed, changed lines interleaved with
 * kept ones, a new file) took 130–300 ms on a busy 2-core machine, a change of a few lines a few ms.
 */
export const DIFF_LINES = 5_000;

/** Whether `text` has more than `max` lines, counted only as far as needed. */
function linesOver(text: string, max: number): boolean {
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) if (++lines > max) return true;
  return false;
}

function omittedWhy(reason: OmittedReason, bytes: number): string {
  const size = `${bytes.toLocaleString('en-US')} bytes`;
  switch (reason) {
    case 'binary':
      return `the file before the run (${size}) is binary`;
    case 'too_large':
      return `the file before the run (${size}) is over the brief's ${BASELINE_FILE_BYTES / KIB} KiB a file`;
    case 'brief_full':
      return `the file before the run (${size}) did not fit in what the brief keeps of the files before the run`;
    case 'unreadable':
      return `the file before the run (${size}) could not be read from the run's snapshot`;
  }
}

/**
 * One changed file of a brief against the file before the run. Whole, as briefs always showed files, when
 * the brief keeps no baseline (an older item, a run without a workspace), when it left the file before the
 * run out (the reason is said), when the final file is over {@link BASELINE_FILE_BYTES} or either side over
 * {@link DIFF_LINES} lines (a diff that large would cost the page its speed), or when the two are the same
 * once thinking tokens were stripped.
 */
export function fileChange(item: ReviewItem, file: string): FileChange {
  const { files, baseline } = item.finalOutput;
  if (baseline === undefined || !Object.hasOwn(baseline, file) || !Object.hasOwn(files, file)) return { kind: 'whole' };
  return changeOf(file, baseline[file] as BaselineFile, files[file] as string | null);
}

/** A file before the run as a brief keeps it: its text, null (it did not exist), or why it was left out. */
export type BaselineFile = string | null | { readonly omitted: OmittedReason; readonly bytes: number };

/** One file's change from `before` (the file before the run) to `after`, by the rules of {@link fileChange}. */
export function changeOf(file: string, before: BaselineFile, after: string | null): FileChange {
  if (before !== null && typeof before === 'object') return { kind: 'whole', why: omittedWhy(before.omitted, before.bytes) };
  if (after !== null && Buffer.byteLength(after) > BASELINE_FILE_BYTES)
    return { kind: 'whole', why: `the file is over ${BASELINE_FILE_BYTES / KIB} KiB, too large to diff here` };
  if ([before, after].some((side) => side !== null && linesOver(side, DIFF_LINES)))
    return {
      kind: 'whole',
      why: `the file is over ${DIFF_LINES.toLocaleString('en-US')} lines before or after the run, too large to diff here`,
    };
  const bytes = (text: string | null): Buffer | null => (text === null ? null : Buffer.from(text, 'utf8'));
  const diff = unifiedDiff([{ file, before: bytes(before), after: bytes(after) }]).toString('utf8');
  if (diff === '') return { kind: 'whole', why: 'it is the same as the file before the run once thinking tokens were stripped' };
  return { kind: 'diff', diff, before };
}
