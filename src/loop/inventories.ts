import type { InventoryChannel, TestInventory } from '../core/test-inventory.js';

/** The test inventories of a run's baseline, by check name, as its baseline record holds them. */
export type BaselineInventories = Readonly<Record<string, TestInventory>>;

/**
 * The channel of the baseline's check set: every test-runner check hands in what its report held, and
 * `recorded` gives it for the baseline record. There is no baseline to compare with yet.
 */
export function baselineChannel(): { readonly channel: InventoryChannel; recorded(): BaselineInventories } {
  const inventories = new Map<string, TestInventory>();
  return {
    channel: { baseline: () => undefined, record: (check, inventory) => void inventories.set(check, inventory) },
    recorded: () => Object.fromEntries(inventories),
  };
}

/** The channel of a candidate's check set: each check's baseline inventory to require; what it hands in is not kept. */
export function candidateChannel(baseline: BaselineInventories): InventoryChannel {
  return { baseline: (check) => (Object.hasOwn(baseline, check) ? baseline[check] : undefined), record: () => undefined };
}
