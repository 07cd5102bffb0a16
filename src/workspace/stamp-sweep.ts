import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { pathIn } from './path-in.js';
import { sameStamp, stampAt, stampsThroughBinding, type Stamp } from './stamp.js';
import { stampColumns } from './state-columns.js';

/** Fewer paths than this are stamped by the walk itself: the second thread's start and messages would cost more. */
const MIN_PATHS = 2048;
/** `lstat` calls of this thread's half between two turns of the event loop (as the walks take them). */
const BATCH = 4096;

/**
 * The second thread: for each request (a folder, paths in it and the stamps they had, six numbers each as
 * `stampColumns` lays them out),
 * answers with one byte per path, 1 where `lstat` gives exactly that stamp now, computed as `stampAt`
 * computes a stamp from Node's `lstat` binding; 0 where it differs, nothing is there, or `lstat` failed.
 * Before its first answer it checks, on paths that exist, that the binding gives what `fs.lstatSync` gives,
 * and says `unavailable` (and answers nothing) where it does not or there is no binding.
 */
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const fs = require('node:fs');
const path = require('node:path');
const S_IFMT = 0o170000;
const CODES = new Map([[0o100000, 0], [0o040000, 1], [0o120000, 2]]);
let lstat;
try {
  const binding = process.binding('fs');
  if (typeof binding.lstat === 'function') lstat = (target) => binding.lstat(target, false, undefined, false);
} catch {}
function same(values, expected, at) {
  const mode = values[1];
  return (CODES.get(mode & S_IFMT) ?? 3) === expected[at] && values[7] === expected[at + 1] && values[8] === expected[at + 2] &&
    values[12] * 1e3 + values[13] / 1e6 === expected[at + 3] && values[14] * 1e3 + values[15] / 1e6 === expected[at + 4] &&
    (mode & 0o7777) === expected[at + 5];
}
if (lstat !== undefined) {
  try {
    for (const file of [process.execPath, path.dirname(process.execPath), '/proc/self/exe'].filter((file) => fs.existsSync(file))) {
      const info = fs.lstatSync(file);
      const kind = info.isFile() ? 0 : info.isDirectory() ? 1 : info.isSymbolicLink() ? 2 : 3;
      const values = lstat(file);
      if (!values || !same(values, [kind, info.ino, info.size, info.mtimeMs, info.ctimeMs, info.mode & 0o7777], 0)) lstat = undefined;
    }
    if (lstat !== undefined && lstat(path.join(path.dirname(process.execPath), '.redline-no-such-entry')) !== undefined) lstat = undefined;
  } catch {
    lstat = undefined;
  }
}
parentPort.postMessage(lstat === undefined ? { unavailable: true } : { ready: true });
parentPort.on('message', ({ id, dir, paths, expected }) => {
  const answer = new Uint8Array(paths.length);
  for (let index = 0; index < paths.length; index++) {
    const file = paths[index];
    if (file.includes('\\0')) continue;
    try {
      const values = lstat(file === '' ? dir : dir + '/' + file);
      if (values !== undefined && same(values, expected, index * 6)) answer[index] = 1;
    } catch {}
  }
  parentPort.postMessage({ id, answer }, [answer.buffer]);
});
`;

/** The second thread, started on first need and kept (not keeping the process alive) while it answers. */
class Sweeper {
  #worker: Worker | undefined;
  #state: 'starting' | 'ready' | 'off' = 'starting';
  readonly #waiting = new Map<number, (answer: Uint8Array | undefined) => void>();
  #next = 0;

  /** The thread when it is ready to answer; else undefined (and it is started, unless it failed). */
  ready(): Worker | undefined {
    if (this.#state === 'off') return undefined;
    // Where this thread does not stamp through the binding (another Node.js, --pending-deprecation), neither does a second one.
    if (this.#worker === undefined && !stampsThroughBinding()) {
      this.#state = 'off';
      return undefined;
    }
    if (this.#worker === undefined) this.#start();
    return this.#state === 'ready' ? this.#worker : undefined;
  }

  #start(): void {
    try {
      const worker = new Worker(SOURCE, { eval: true });
      worker.unref();
      worker.on('message', (message: { ready?: true; unavailable?: true; id?: number; answer?: Uint8Array }) => {
        if (message.ready === true) this.#state = 'ready';
        else if (message.unavailable === true) this.#stop();
        else if (message.id !== undefined) {
          this.#waiting.get(message.id)?.(message.answer);
          this.#waiting.delete(message.id);
        }
      });
      worker.on('error', () => this.#stop());
      worker.on('exit', () => this.#stop());
      this.#worker = worker;
    } catch {
      this.#state = 'off';
    }
  }

  #stop(): void {
    this.#state = 'off';
    for (const wake of this.#waiting.values()) wake(undefined);
    this.#waiting.clear();
    void this.#worker?.terminate();
  }

  /** The thread's answer for `paths` of `dir`, or undefined when it stopped meanwhile. */
  ask(worker: Worker, dir: string, paths: string[], expected: Float64Array): Promise<Uint8Array | undefined> {
    const id = this.#next;
    this.#next += 1;
    const answer = new Promise<Uint8Array | undefined>((resolve) => this.#waiting.set(id, resolve));
    // Kept alive while an answer is awaited, so that the process does not end under a pending walk.
    worker.ref();
    try {
      worker.postMessage({ id, dir, paths, expected }, [expected.buffer as ArrayBuffer]);
    } catch {
      this.#waiting.get(id)?.(undefined);
      this.#waiting.delete(id);
    }
    return answer.finally(() => {
      if (this.#waiting.size === 0) worker.unref();
    });
  }
}

const sweeper = new Sweeper();

/** Starts the second thread ahead of the walks of a copy of `paths` paths, when they will use it. */
export function warmSweep(paths: number): void {
  if (paths >= MIN_PATHS) sweeper.ready();
}

/** What {@link unchangedAt} found: which of the paths it swept still had exactly the stamps it compared. */
export interface Swept {
  readonly files: readonly string[];
  readonly stamps: readonly Stamp[];
  /** 1 where the path had exactly that stamp, 0 where it was changed, gone or unreadable. */
  readonly same: Uint8Array;
}

/**
 * Whether the walk may take `stamp` as the stamp of `file` now: the sweep found it unchanged, and it is the
 * very path and stamp the sweep compared at that place of the map (a map changed since is stamped again).
 */
export function sweptUnchanged(swept: Swept | undefined, index: number, file: string, stamp: Stamp): boolean {
  return swept !== undefined && swept.same[index] === 1 && swept.files[index] === file && swept.stamps[index] === stamp;
}

/**
 * Which paths of `dir` still have exactly the stamps in `stamps` (see {@link sweptUnchanged}), with the
 * `lstat` calls of a large walk split between this thread and a second one; undefined for a small walk,
 * or where the second thread is not ready or not available (the walk then stamps each path itself). A
 * path not found unchanged is only one the walk must stamp itself.
 */
export async function unchangedAt(dir: string, stamps: ReadonlyMap<string, Stamp>): Promise<Swept | undefined> {
  if (stamps.size < MIN_PATHS) return undefined;
  const worker = sweeper.ready();
  if (worker === undefined) return undefined;
  const files = [...stamps.keys()];
  const swept = [...stamps.values()];
  const half = files.length >> 1;
  // The second half goes to the other thread, its stamps as numbers the way the cache's state stores them
  // (six per path; stamps are numbers throughout: made by stampOf, or read back and checked by stampsFrom).
  const theirs = files.slice(half);
  const expected = new Float64Array(stampColumns(theirs.map((file, index) => [file, swept[half + index] as Stamp])).numbers);
  const answer = sweeper.ask(worker, dir, theirs, expected);
  const same = new Uint8Array(files.length);
  for (let index = 0; index < half; index++) {
    if (index > 0 && index % BATCH === 0) await yieldToLoop();
    try {
      const now = stampAt(pathIn(dir, files[index] as string));
      if (now !== undefined && sameStamp(now, swept[index] as Stamp)) same[index] = 1;
    } catch {
      // Stamped again by the walk, which reports what is wrong.
    }
  }
  const other = await answer;
  if (other === undefined || other.length !== theirs.length) return undefined;
  same.set(other, half);
  return { files, stamps: swept, same };
}
