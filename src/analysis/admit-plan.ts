import { contentHash } from '../workspace/manifest.js';
import { ALWAYS_IGNORED, ignoreRule } from '../workspace/ignore.js';
import { normalPath } from '../core/candidate.js';
import { malformedPath } from '../workspace/path-rules.js';
import type { AdmitProblem } from '../errors/admit-error.js';

/** What a directory (or a commit) holds at a candidate path, found without following any symlink. */
export type Found =
  | { readonly kind: 'missing' }
  /** A regular file; `mode` as git writes it (0o100644 or 0o100755). */
  | { readonly kind: 'file'; readonly bytes: Uint8Array; readonly mode: number }
  /** Something admission never writes to or through: a symlink, a directory, a submodule, … */
  | { readonly kind: 'refused'; readonly reason: string }
  /** The path lies below a regular file: it can only be written if the candidate deletes that file. */
  | { readonly kind: 'under_file'; readonly ancestor: string };

/**
 * How a path of the target differs from the run's baseline snapshot: `changed`, `created` or
 * `deleted` since the run started, or (`uncommitted`, for a branch) HEAD differs while the working
 * tree still holds the baseline's file: the run started from uncommitted changes to it.
 */
export type ConflictChange = 'changed' | 'created' | 'deleted' | 'uncommitted';

export interface Conflict {
  readonly file: string;
  readonly change: ConflictChange;
}

/** A conflict in words, without the path. */
export function conflictReason(change: ConflictChange): string {
  return change === 'uncommitted'
    ? 'differs from HEAD: the run started from uncommitted changes to this file'
    : `${change} since the run started`;
}

/** One path admission changes: what the target holds now and what the candidate puts there. */
export interface Change {
  readonly file: string;
  /** The current bytes, null when absent. */
  readonly before: Uint8Array | null;
  /** The mode of the current file (0o100644 when absent). */
  readonly mode: number;
  readonly after: string | null;
}

export interface Plan {
  /** Paths admission may not touch: nothing is written when there is one, whatever `force` says. */
  readonly refused: readonly AdmitProblem[];
  /** Paths whose target changed since the baseline and does not hold the candidate's content either. */
  readonly conflicts: readonly Conflict[];
  /** Without baseline hashes: the paths to change, which no conflict check covers. */
  readonly unchecked: readonly string[];
  readonly changes: readonly Change[];
  /** Paths that already hold the candidate's content (or are absent where it deletes). */
  readonly unchanged: readonly string[];
}

/** The paths every snapshot leaves out (`.git`, `.redline`, at any depth, case-folded): never admitted. */
const neverAdmitted = ignoreRule();

/**
 * Why admission refuses a candidate path before looking at any target, or undefined: what the
 * workspace's rules refuse without a snapshot ({@link malformedPath}: empty, absolute, leaving the
 * directory, inside `.git` in any case, an over-long component, …), a path not in the normal form the
 * loop records, one inside a directory no snapshot holds (`.redline` at any depth, in any case: the
 * user's ledger), or one below another path the candidate writes as a file.
 */
export function admitPathProblem(file: string, files: Readonly<Record<string, string | null>>): string | undefined {
  const malformed = malformedPath(file);
  // malformedPath ends with the path (quoted, maybe shortened); the problem lists it already.
  if (malformed !== undefined) return malformed.replace(/ "(?:[^"\\]|\\.)*"$/, '');
  if (normalPath(file) !== file) return 'a path not in normal form';
  if (neverAdmitted(file)) return `a path inside ${ALWAYS_IGNORED.join(' or ')}, which redline never admits into`;
  const parts = file.split('/');
  for (let end = 1; end < parts.length; end += 1) {
    const ancestor = parts.slice(0, end).join('/');
    if (typeof files[ancestor] === 'string') return `below ${JSON.stringify(ancestor)}, which the candidate writes as a file`;
  }
  return undefined;
}

const equalBytes = (bytes: Uint8Array, text: string): boolean => Buffer.compare(bytes, Buffer.from(text, 'utf8')) === 0;

/**
 * Sorts the candidate's paths into refused, conflicting, unchecked, to change and unchanged, given
 * what the target holds at each path that passed {@link admitPathProblem}. A target that already
 * holds the candidate's content is unchanged, never a conflict, so admitting twice changes nothing.
 */
export function planAdmission({
  files,
  baseline,
  found,
}: {
  files: Readonly<Record<string, string | null>>;
  baseline: Readonly<Record<string, string | null>> | undefined;
  found: ReadonlyMap<string, Found>;
}): Plan {
  const refused: AdmitProblem[] = [];
  const conflicts: Conflict[] = [];
  const unchecked: string[] = [];
  const changes: Change[] = [];
  const unchanged: string[] = [];
  for (const file of Object.keys(files).sort()) {
    const after = files[file] as string | null;
    const problem = admitPathProblem(file, files);
    const at: Found =
      problem === undefined ? (found.get(file) ?? { kind: 'refused', reason: 'not looked up' }) : { kind: 'refused', reason: problem };
    if (at.kind === 'refused') {
      refused.push({ file, reason: at.reason });
      continue;
    }
    if (at.kind === 'under_file' && files[at.ancestor] !== null) {
      refused.push({ file, reason: `below the file ${JSON.stringify(at.ancestor)}` });
      continue;
    }
    // Below a file the candidate deletes, the path is free once that deletion is done.
    const before = at.kind === 'file' ? at.bytes : null;
    if (after === null ? before === null : before !== null && equalBytes(before, after)) {
      unchanged.push(file);
      continue;
    }
    changes.push({ file, before, mode: at.kind === 'file' ? at.mode : 0o100644, after });
    if (baseline === undefined) {
      unchecked.push(file);
      continue;
    }
    const expected = baseline[file] ?? null;
    if (expected === null ? before !== null : before === null || contentHash(before) !== expected) {
      conflicts.push({ file, change: before === null ? 'deleted' : expected === null ? 'created' : 'changed' });
    }
  }
  return { refused, conflicts, unchecked, changes, unchanged };
}
