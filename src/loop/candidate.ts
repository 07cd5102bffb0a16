import { hash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { canonicalJson } from './canonical-json.js';

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
export const EMPTY_CANDIDATE: Candidate = Object.freeze({ files: Object.freeze({}), footprint: Object.freeze([]), hash: hashCandidate({}, undefined) });

function hashCandidate(files: Record<string, string | null>, value: unknown): string {
  return hash('sha256', canonicalJson({ files, value }), 'hex');
}

/** Why a proposed path is not acceptable, or undefined when it is a plain relative path. */
export function badPath(file: string): string | undefined {
  if (file.length === 0) return 'an empty path';
  if (path.isAbsolute(file) || /^[A-Za-z]:/.test(file)) return `an absolute path "${file}"`;
  const normal = path.posix.normalize(file.replace(/\\/g, '/'));
  if (normal === '..' || normal.startsWith('../')) return `a path leaving the workspace "${file}"`;
  if (normal.split('/').includes('.git')) return `a path inside .git "${file}"`;
  return undefined;
}

/** Reads baseline files on demand and remembers them (the baseline never changes during a run). */
export class Baseline {
  readonly #dir: string | undefined;
  readonly #cache = new Map<string, string | null>();

  constructor(dir: string | undefined) {
    this.#dir = dir;
  }

  async read(file: string): Promise<string | null> {
    const cached = this.#cache.get(file);
    if (cached !== undefined) return cached;
    let content: string | null = null;
    if (this.#dir !== undefined) content = await readFile(path.join(this.#dir, file), 'utf8').catch(() => null);
    this.#cache.set(file, content);
    return content;
  }
}

/**
 * Applies a proposal (changed paths, `null` = delete) on top of the previous candidate and drops every
 * path whose content equals the baseline, so reverting a change gives the baseline's hash again.
 */
export async function applyProposal(previous: Candidate, changes: Readonly<Record<string, string | null>> | undefined, value: unknown, baseline: Baseline): Promise<Candidate> {
  const merged: Record<string, string | null> = { ...previous.files };
  for (const [file, content] of Object.entries(changes ?? {})) merged[path.posix.normalize(file.replace(/\\/g, '/'))] = content;
  const files: Record<string, string | null> = {};
  for (const file of Object.keys(merged).sort()) {
    const content = merged[file] as string | null;
    if ((await baseline.read(file)) !== content) files[file] = content;
  }
  const nextValue = value === undefined ? previous.value : value;
  return Object.freeze({
    files: Object.freeze(files),
    ...(nextValue === undefined ? {} : { value: nextValue }),
    footprint: Object.freeze(Object.keys(files)),
    hash: hashCandidate(files, nextValue),
  });
}
