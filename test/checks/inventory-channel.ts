import type { InventoryChannel, TestInventory } from '../../src/core/test-inventory.js';

/** A Map-backed inventory channel: `baselines` is what it hands out, `recorded` what the checks handed in. */
export interface RecordingChannel extends InventoryChannel {
  readonly recorded: Map<string, TestInventory>;
}

/** An inventory channel for one check set: at the baseline give none, on a candidate the baseline's `recorded`. */
export function inventoryChannel(baselines?: ReadonlyMap<string, TestInventory>): RecordingChannel {
  const recorded = new Map<string, TestInventory>();
  return {
    recorded,
    baseline: (check) => baselines?.get(check),
    record: (check, inventory) => {
      recorded.set(check, inventory);
    },
  };
}
