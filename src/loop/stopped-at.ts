import type { LoopState, UnderWay } from './loop-state.js';

/**
 * What a step of the loop throws when something under it throws: the error, with where the run stood
 * (the attempt and candidate under way, the state stepped so far) for the seal to record.
 */
export class StoppedAt extends Error {
  constructor(
    readonly state: LoopState,
    override readonly cause: unknown,
    /** The attempt under way, when the step was inside one. */
    readonly underWay?: UnderWay,
  ) {
    super('stopped', { cause });
    this.name = 'StoppedAt';
  }
}

/**
 * Runs `work`; when it throws, the error carries `state` (and the attempt under way, as it stands when the
 * error is caught) to the seal. An error that already carries them keeps them.
 */
export async function standing<T>(
  state: LoopState,
  work: () => Promise<T>,
  underWay?: UnderWay | (() => UnderWay | undefined),
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw error instanceof StoppedAt ? error : new StoppedAt(state, error, typeof underWay === 'function' ? underWay() : underWay);
  }
}
