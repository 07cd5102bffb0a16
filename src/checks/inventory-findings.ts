import { finding, type Check } from '../core/check.js';
import type { Finding } from '../core/finding.js';
import type { InventoryCase } from '../core/test-inventory.js';
import type { InventoryComparison } from './inventory-comparison.js';

type CheckFields = Pick<Check, 'name' | 'stage' | 'tier'>;

function where(item: InventoryCase): { location: { test: string; file?: string } } {
  return { location: { test: item.id, ...(item.file === undefined ? {} : { file: item.file }) } };
}

const plural = (count: number, noun: string): string => `${count} ${noun}${count === 1 ? '' : 's'}`;

/**
 * The `fail` findings for baseline cases the candidate's report lost: one per missing case
 * (`test.missing:<id>`), one per case that ran at the baseline and is skipped or TODO now
 * (`test.newly_skipped:<id>`), and one summary (`test.inventory_shrank`); none when nothing was lost.
 */
export function inventoryFindings(check: CheckFields, comparison: InventoryComparison, baselineCases: number): Finding[] {
  const { missing, newlySkipped } = comparison;
  const lost = missing.length + newlySkipped.length;
  if (lost === 0) return [];
  return [
    ...missing.map((item) =>
      finding(
        check,
        'fail',
        [`test.missing:${item.id}`],
        `${item.id} is missing: the baseline's report had it (${item.status}), this report does not`,
        where(item),
      ),
    ),
    ...newlySkipped.map((item) =>
      finding(check, 'fail', [`test.newly_skipped:${item.id}`], `${item.id} ran at the baseline but is ${item.status} now`, where(item)),
    ),
    finding(
      check,
      'fail',
      ['test.inventory_shrank'],
      `${lost} of ${plural(baselineCases, 'baseline test')} did not run (${missing.length} missing, ${newlySkipped.length} newly skipped)`,
    ),
  ];
}
