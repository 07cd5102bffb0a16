import { hash } from 'node:crypto';
import path from 'node:path';
import { canonicalJson } from './canonical-json.js';

/** The normal form every candidate path is kept in: POSIX separators, no `.` or empty segments. */
export function normalPath(file: string): string {
  return path.posix.normalize(file.replace(/\\/g, '/'));
}

/** A proposal applied to the baseline: only the paths whose content differs from it. */
export interface Candidate {
  /** New content per changed path; `null` deletes the baseline file. Only real changes are kept. */
  readonly files: Readonly<Record<string, string | null>>;
  /** A text/JSON value, for missions whose output is not (only) files. */
  readonly value?: unknown;
  /** Sorted paths the candidate changes. */
  readonly footprint: readonly string[];
  /** Normalized content hash: equal for candidates that change the baseline the same way. */
  readonly hash: string;
}

/** The baseline candidate: no change. */
export const EMPTY_CANDIDATE: Candidate = Object.freeze({
  files: Object.freeze({}),
  footprint: Object.freeze([]),
  hash: hashCandidate({}, undefined),
});

function hashCandidate(files: Record<string, string | null>, value: unknown): string {
  return hash('sha256', canonicalJson({ files, value }), 'hex');
}

/**
 * Reads baseline files on demand and remembers them. The baseline is the run's snapshot, never the
 * live workspace: what happens to the workspace during the run cannot change a candidate.
 */
export class Baseline {
  readonly #read: (file: string) => string | null;
  readonly #cache = new Map<string, string | null>();

  /** @param read the snapshot's text of a file, or null when the snapshot has none (no workspace: none ever). */
  constructor(read: (file: string) => string | null = () => null) {
    this.#read = read;
  }

  read(file: string): string | null {
    const cached = this.#cache.get(file);
    if (cached !== undefined) return cached;
    const content = this.#read(file);
    this.#cache.set(file, content);
    return content;
  }
}

/**
 * Applies a proposal (changed paths, `null` = delete) on top of the previous candidate and drops every
 * path whose content equals the baseline, so reverting a change gives the baseline's hash again.
 */
export function applyProposal(
  previous: Candidate,
  changes: Readonly<Record<string, string | null>> | undefined,
  value: unknown,
  baseline: Baseline,
): Candidate {
  const merged: Record<string, string | null> = { ...previous.files };
  for (const [file, content] of Object.entries(changes ?? {})) merged[normalPath(file)] = content;
  const files: Record<string, string | null> = {};
  for (const file of Object.keys(merged).sort()) {
    const content = merged[file] as string | null;
    if (baseline.read(file) !== content) files[file] = content;
  }
  const nextValue = value === undefined ? previous.value : value;
  return Object.freeze({
    files: Object.freeze(files),
    ...(nextValue === undefined ? {} : { value: nextValue }),
    footprint: Object.freeze(Object.keys(files)),
    hash: hashCandidate(files, nextValue),
  });
}
