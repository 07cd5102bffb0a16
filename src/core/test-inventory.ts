/** A test case's outcome in an inventory: TODO tests are told apart from skipped ones. */
export type CaseStatus = 'pass' | 'fail' | 'skip' | 'todo';

/** One test case a test-runner check's report held, by its stable identity. */
export interface InventoryCase {
  /**
   * Stable across attempts and runs: the file when the report declares one for the case, the enclosing
   * suites and the name, without temp paths; cases that share all of it get ` #2`, ` #3` in report order.
   * Line numbers are never part of it.
   */
  readonly id: string;
  readonly status: CaseStatus;
  /** The case's file relative to the check copy, when the report declares it. */
  readonly file?: string;
}

/**
 * The reason-code prefix of a test-runner check's `pass` finding for each baseline case its `allowMissing`
 * let go missing or skipped (`test.allowed_missing:<id>`): a stated removal, which caps the run at `sampled`.
 */
export const ALLOWED_MISSING_CODE = 'test.allowed_missing';

/** Every test case one test-runner check reported, in report order. */
export interface TestInventory {
  readonly cases: readonly InventoryCase[];
}

/**
 * How checks learn the baseline's inventories and hand in their own: the loop gives every check set one.
 * A test-runner check records what its report held and, on a candidate, requires every case the
 * baseline's report held (by the same check's name) to be present and passing.
 */
export interface InventoryChannel {
  /** The inventory the check named `check` recorded on the run's baseline; undefined at the baseline itself, or when it recorded none. */
  baseline(check: string): TestInventory | undefined;
  /** Hands in what the check named `check` reported on this check set. */
  record(check: string, inventory: TestInventory): void;
}

/** Counts of an inventory's cases by status, and the distinct files they declare. */
export function inventoryCounts(inventory: TestInventory): Record<CaseStatus, number> & { readonly total: number; readonly files: number } {
  const counts = { pass: 0, fail: 0, skip: 0, todo: 0 };
  const files = new Set<string>();
  for (const item of inventory.cases) {
    counts[item.status] += 1;
    if (item.file !== undefined) files.add(item.file);
  }
  return { ...counts, total: inventory.cases.length, files: files.size };
}

/** The ids of baseline cases a stated removal let go, from the findings' `test.allowed_missing:<id>` codes. */
export function allowedMissing(findings: readonly { readonly reasonCodes: readonly string[] }[]): string[] {
  const prefix = `${ALLOWED_MISSING_CODE}:`;
  return findings.flatMap((item) => item.reasonCodes.filter((code) => code.startsWith(prefix)).map((code) => code.slice(prefix.length)));
}
