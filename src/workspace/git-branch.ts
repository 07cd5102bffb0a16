import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { RedlineError } from '../errors/redline-error.js';

// Everything here is git plumbing against HEAD's objects: the user's working tree, real index and
// checked-out branch are never read or written. A new tree is built in a temporary index.

/** Variables that would point git at another repository, index or object store than the one at hand. */
const REDIRECTS = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_COMMON_DIR',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
];

/** The repository holding a directory, as of its HEAD commit. */
export interface Repository {
  /** The repository's top-level directory. */
  readonly top: string;
  /** The directory's path below `top`, with a trailing `/` ('' at the top). */
  readonly prefix: string;
  /** HEAD's commit id. */
  readonly head: string;
}

/** What HEAD's tree holds at a path (relative to the directory). Modes are git's: 0o100644, 0o120000, … */
export type TreeLookup =
  | { readonly kind: 'missing' }
  /** `bytes` only for regular files (mode 0o100644 or 0o100755). */
  | {
      readonly kind: 'entry';
      readonly type: 'blob' | 'tree' | 'commit';
      readonly mode: number;
      readonly oid: string;
      readonly bytes?: Buffer;
    }
  /** An ancestor of the path is not a tree (a file, a symlink or a submodule). */
  | { readonly kind: 'below'; readonly ancestor: string; readonly type: 'blob' | 'commit'; readonly mode: number };

interface Entry {
  readonly type: 'blob' | 'tree' | 'commit';
  readonly mode: number;
  readonly oid: string;
}

async function git(
  cwd: string,
  args: readonly string[],
  { input, env = {} }: { input?: Uint8Array | string; env?: Readonly<Record<string, string>> } = {},
): Promise<Buffer> {
  const base = { ...process.env };
  for (const name of REDIRECTS) delete base[name];
  const child = spawn('git', args, { cwd, env: { ...base, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
  child.stdin.on('error', () => undefined);
  child.stdin.end(input ?? '');
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) =>
      reject(new RedlineError({ code: 'git.unavailable', message: `cannot run git: ${error.message}`, cause: error })),
    );
    child.on('close', resolve);
  });
  if (code !== 0) {
    const reason = Buffer.concat(err).toString('utf8').trim().split('\n').at(-1) ?? '';
    throw new RedlineError({ code: 'git.failed', message: `git ${args[0]} failed in ${cwd}${reason === '' ? '' : `: ${reason}`}` });
  }
  return Buffer.concat(out);
}

const text = async (cwd: string, args: readonly string[]): Promise<string> => (await git(cwd, args)).toString('utf8').replace(/\n$/, '');

/**
 * The repository `dir` lies in and its HEAD commit.
 * @throws {RedlineError} `git.not_repository` or `git.no_head` (a repository without a commit yet).
 */
export async function openRepository(dir: string): Promise<Repository> {
  const top = await text(dir, ['rev-parse', '--show-toplevel']).catch((error: unknown) => {
    if (RedlineError.isInstance(error) && error.code === 'git.failed')
      throw new RedlineError({ code: 'git.not_repository', message: `${dir} is not inside a git working tree` });
    throw error;
  });
  const prefix = await text(dir, ['rev-parse', '--show-prefix']);
  const head = await text(dir, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']).catch(() => {
    throw new RedlineError({ code: 'git.no_head', message: `the repository at ${top} has no commit yet (HEAD is unborn)` });
  });
  return { top, prefix, head };
}

/**
 * The top of the git working tree holding `dir` and `dir`'s path below it (with a trailing `/`, '' at
 * the top), or undefined outside any working tree (or without git).
 */
export async function workingTreeOf(dir: string): Promise<{ readonly top: string; readonly prefix: string } | undefined> {
  const lines = await text(dir, ['rev-parse', '--show-toplevel', '--show-prefix']).catch(() => undefined);
  if (lines === undefined) return undefined;
  const [top = '', prefix = ''] = lines.split('\n');
  return { top, prefix };
}

/** Whether `name` is a valid name for a new branch (`git branch` refuses names starting with `-`, and `HEAD`). */
export async function validBranchName(repository: Repository, name: string): Promise<boolean> {
  if (name.startsWith('-') || name === 'HEAD') return false;
  return git(repository.top, ['check-ref-format', `refs/heads/${name}`]).then(
    () => true,
    () => false,
  );
}

/** Whether the branch `name` exists. */
export async function branchExists(repository: Repository, name: string): Promise<boolean> {
  return git(repository.top, ['show-ref', '--verify', '--quiet', `refs/heads/${name}`]).then(
    () => true,
    () => false,
  );
}

const MODE_TYPES: Readonly<Record<string, Entry['type']>> = { blob: 'blob', tree: 'tree', commit: 'commit' };

/** The entries of one tree object, by name. */
async function listTree(repository: Repository, oid: string): Promise<Map<string, Entry>> {
  const entries = new Map<string, Entry>();
  for (const line of (await git(repository.top, ['ls-tree', '-z', oid])).toString('utf8').split('\0')) {
    const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(line);
    const type = MODE_TYPES[match?.[2] ?? ''];
    if (match === null || type === undefined) continue;
    entries.set(match[4] as string, { type, mode: Number.parseInt(match[1] as string, 8), oid: match[3] as string });
  }
  return entries;
}

const REGULAR = new Set([0o100644, 0o100755]);

/**
 * What HEAD holds at each of `files` (relative to the repository's directory), walking its trees one
 * directory at a time; the bytes of every regular file found.
 */
export async function lookUpHead(repository: Repository, files: readonly string[]): Promise<Map<string, TreeLookup>> {
  const trees = new Map<string, Map<string, Entry>>();
  const tree = async (oid: string): Promise<Map<string, Entry>> => {
    const known = trees.get(oid) ?? (await listTree(repository, oid));
    trees.set(oid, known);
    return known;
  };
  const root = await text(repository.top, ['rev-parse', `${repository.head}^{tree}`]);
  const prefixParts = repository.prefix.split('/').filter((part) => part !== '');
  const found = new Map<string, TreeLookup>();
  for (const file of files) {
    const parts = [...prefixParts, ...file.split('/')];
    let current: Entry = { type: 'tree', mode: 0o40000, oid: root };
    let result: TreeLookup | undefined;
    for (let index = 0; index < parts.length && result === undefined; index += 1) {
      if (current.type !== 'tree') {
        // An ancestor at or above the directory itself is named '.'.
        result = {
          kind: 'below',
          ancestor: index <= prefixParts.length ? '.' : parts.slice(prefixParts.length, index).join('/'),
          type: current.type,
          mode: current.mode,
        };
        break;
      }
      const next = (await tree(current.oid)).get(parts[index] as string);
      if (next === undefined) result = { kind: 'missing' };
      else current = next;
    }
    if (result === undefined) {
      const bytes =
        current.type === 'blob' && REGULAR.has(current.mode) ? await git(repository.top, ['cat-file', 'blob', current.oid]) : undefined;
      result = { kind: 'entry', ...current, ...(bytes === undefined ? {} : { bytes }) };
    }
    found.set(file, result);
  }
  return found;
}

/** Who a commit is by when git has no identity configured. */
const FALLBACK = { NAME: 'redline', EMAIL: 'redline@localhost' } as const;

/** Environment for `commit-tree`: git's configured identity, else {@link FALLBACK} for each part missing. */
async function identity(repository: Repository): Promise<Record<string, string>> {
  const listed = await git(repository.top, ['config', '-z', '--get-regexp', '^(user|author|committer)\\.(name|email)$']).catch(() =>
    Buffer.alloc(0),
  );
  const configured = new Set(
    listed
      .toString('utf8')
      .split('\0')
      .map((entry) => entry.split('\n')[0]?.toLowerCase()),
  );
  const env: Record<string, string> = {};
  for (const role of ['author', 'committer'] as const) {
    for (const field of ['NAME', 'EMAIL'] as const) {
      const variable = `GIT_${role.toUpperCase()}_${field}`;
      const key = field.toLowerCase();
      const known =
        process.env[variable] !== undefined ||
        configured.has(`${role}.${key}`) ||
        configured.has(`user.${key}`) ||
        (field === 'EMAIL' && process.env.EMAIL !== undefined);
      if (!known) env[variable] = FALLBACK[field];
    }
  }
  return env;
}

/** What {@link commitBranch} made. */
export interface BranchCommit {
  readonly branch: string;
  readonly commit: string;
  readonly tree: string;
}

/**
 * Creates branch `branch` at a new commit whose parent is HEAD and whose tree is HEAD's with `files`
 * (relative to the repository's directory) written, or removed where null. Contents are stored byte
 * for byte (no clean filter or end-of-line conversion). `git branch` refuses a branch that exists.
 */
export async function commitBranch({
  repository,
  branch,
  files,
  modes = {},
  message,
}: {
  repository: Repository;
  branch: string;
  files: Readonly<Record<string, Uint8Array | null>>;
  /** The mode per written file. @default 0o100644 */
  modes?: Readonly<Record<string, number>>;
  message: string;
}): Promise<BranchCommit> {
  const scratch = await mkdtemp(path.join(os.tmpdir(), 'redline-index-'));
  try {
    const env = { GIT_INDEX_FILE: path.join(scratch, 'index') };
    const { top, head, prefix } = repository;
    await git(top, ['read-tree', head], { env });
    const zero = '0'.repeat(head.length);
    let info = '';
    // Removals first, so a file the candidate deletes can give way to a directory of the same name.
    for (const [file, bytes] of Object.entries(files)) if (bytes === null) info += `0 ${zero}\t${prefix}${file}\0`;
    for (const [file, bytes] of Object.entries(files)) {
      if (bytes === null) continue;
      const oid = (await git(top, ['hash-object', '-w', '--stdin'], { input: bytes })).toString('utf8').trim();
      info += `${(modes[file] ?? 0o100644).toString(8)} ${oid}\t${prefix}${file}\0`;
    }
    await git(top, ['update-index', '-z', '--index-info'], { env, input: info });
    const tree = (await git(top, ['write-tree'], { env })).toString('utf8').trim();
    const commit = (
      await git(top, ['commit-tree', tree, '-p', head, '-F', '-'], { env: { ...env, ...(await identity(repository)) }, input: message })
    )
      .toString('utf8')
      .trim();
    await git(top, ['branch', branch, commit]);
    return { branch, commit, tree };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
