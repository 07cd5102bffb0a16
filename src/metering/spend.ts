import type { MeterRefusal, MeterSpend } from '../core/model-call.js';

/** What an attempt may still spend: the run's budgets left when it started (`budgetsLeft` of the request). */
export interface SpendBudget {
  /** Input plus output tokens. */
  readonly tokens?: number | undefined;
  readonly costUsd?: number | undefined;
}

/** Which budget `spent` has reached, tokens first; undefined while both have room (or are not set). */
export function spentBudget(spent: MeterSpend, budget: SpendBudget): Extract<MeterRefusal, 'budget_tokens' | 'budget_cost'> | undefined {
  if (budget.tokens !== undefined && spent.inputTokens + spent.outputTokens >= budget.tokens) return 'budget_tokens';
  if (budget.costUsd !== undefined && (spent.costUsd ?? 0) >= budget.costUsd) return 'budget_cost';
  return undefined;
}

/**
 * The running spend of one attempt, from every source that reports it (the meter's calls, the lines of a
 * usage log), with a signal that fires once it reaches a budget: what ends the agent. Its reason is the
 * budget reached.
 */
export class AttemptSpend {
  readonly #budget: SpendBudget;
  readonly #controller = new AbortController();
  #inputTokens = 0;
  #outputTokens = 0;
  #costUsd: number | undefined;

  constructor(budget: SpendBudget = {}) {
    this.#budget = Object.freeze({ ...budget });
  }

  /** Aborts when the agent is to be ended; its reason is a {@link MeterRefusal}. */
  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get budget(): SpendBudget {
    return this.#budget;
  }

  get spent(): MeterSpend {
    return {
      inputTokens: this.#inputTokens,
      outputTokens: this.#outputTokens,
      ...(this.#costUsd === undefined ? {} : { costUsd: this.#costUsd }),
    };
  }

  /** The budget already reached, if any. */
  get reached(): ReturnType<typeof spentBudget> {
    return spentBudget(this.spent, this.#budget);
  }

  /** Adds what one call (or one reported line) spent. */
  add({ inputTokens = 0, outputTokens = 0, costUsd }: { inputTokens?: number; outputTokens?: number; costUsd?: number | undefined }): void {
    this.#inputTokens += inputTokens;
    this.#outputTokens += outputTokens;
    if (costUsd !== undefined) this.#costUsd = (this.#costUsd ?? 0) + costUsd;
  }

  /** Ends the agent (once): `reason` says why. */
  end(reason: MeterRefusal): void {
    if (!this.#controller.signal.aborted) this.#controller.abort(reason);
  }

  /** Why the agent was ended, if it was. */
  get ended(): MeterRefusal | undefined {
    return this.#controller.signal.aborted ? (this.#controller.signal.reason as MeterRefusal) : undefined;
  }
}
