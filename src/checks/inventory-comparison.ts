import type { InventoryCase, TestInventory } from '../core/test-inventory.js';
import { casePattern } from './case-pattern.js';

/** How a candidate's report stands against the baseline's, case by case (see {@link compareInventory}). */
export interface InventoryComparison {
  /** Baseline cases the candidate's report does not hold, in baseline order. */
  readonly missing: readonly InventoryCase[];
  /** Baseline cases that passed or failed and are skipped or TODO now, as the candidate reported them. */
  readonly newlySkipped: readonly InventoryCase[];
  /** Baseline cases missing or newly skipped that `allowMissing` names: stated removals. */
  readonly allowed: readonly InventoryCase[];
  /** Cases the candidate's report holds that the baseline's did not. */
  readonly added: number;
}

const ran = (item: InventoryCase): boolean => item.status === 'pass' || item.status === 'fail';

/**
 * Compares a candidate's test inventory with the baseline's: every baseline case must still be reported,
 * and one that ran (passed or failed) at the baseline must still run; a case skipped or TODO at the
 * baseline may stay so. A case the `allowMissing` patterns (see `casePattern`) match may do either: it is
 * `allowed`, not missing. Whether the cases that ran pass is the report's failures' business, not this.
 *
 * @example
 * compareInventory({ cases: [{ id: 'adds', status: 'fail' }] }, { cases: [{ id: 'a.js', status: 'pass' }] }, []);
 * // { missing: [{ id: 'adds', status: 'fail' }], newlySkipped: [], allowed: [], added: 1 }
 */
export function compareInventory(baseline: TestInventory, candidate: TestInventory, allowMissing: readonly string[]): InventoryComparison {
  const now = new Map(candidate.cases.map((item) => [item.id, item]));
  const stated = allowMissing.map(casePattern);
  const missing: InventoryCase[] = [];
  const newlySkipped: InventoryCase[] = [];
  const allowed: InventoryCase[] = [];
  for (const before of baseline.cases) {
    const after = now.get(before.id);
    if (after !== undefined && (ran(after) || !ran(before))) continue;
    if (stated.some((matches) => matches(before.id))) allowed.push(before);
    else if (after === undefined) missing.push(before);
    else newlySkipped.push(after);
  }
  const known = new Set(baseline.cases.map((item) => item.id));
  return { missing, newlySkipped, allowed, added: candidate.cases.filter((item) => !known.has(item.id)).length };
}
