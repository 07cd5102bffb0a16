/** The runs this process is running now: recovery and the sweep in the same process must leave them alone. */
const held = new Set<string>();

/**
 * Marks `runId` as run by this process (a process may run many at once: `redline run --concurrency`,
 * `redline worker`) until the returned release is called.
 */
export function holdRun(runId: string): () => void {
  held.add(runId);
  return () => void held.delete(runId);
}

/** Whether this process is running `runId` now. */
export function holdsRun(runId: string): boolean {
  return held.has(runId);
}
