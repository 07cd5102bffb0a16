/**
 * The queue key of a human judge's request for one attempt of a run: the queue holds one item per key,
 * so every attempt gets its own, and a resumed run finds its request again.
 */
export function humanRequestKey(runId: string, attempt: number): string {
  return `${runId}#attempt-${attempt}`;
}

/** The run a review item belongs to: its run id, or the run of a human judge's request for one attempt. */
export function ledgerRunOf(itemRunId: string): string {
  return itemRunId.replace(/#attempt-\d+$/, '');
}
