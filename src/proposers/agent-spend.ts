import type { MeterAccount, MeterRefusal } from '../core/model-call.js';
import { usdWords } from '../core/model-call.js';
import { ProposerError } from '../errors/proposer-error.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { startMeter } from '../metering/meter.js';
import { DEFAULT_PRICES, type PriceTable } from '../metering/prices.js';
import { AttemptSpend, type SpendBudget } from '../metering/spend.js';
import { watchUsageLog } from '../metering/usage-log.js';
import type { BudgetsLeft, Usage } from './proposer.js';

/** A metering endpoint an agent's model calls go through (docs/metering.md). */
export interface AgentMeterOptions {
  /** The base URL of the real endpoint, as the agent would be given it (`https://api.openai.com/v1`, `https://api.anthropic.com`). */
  readonly upstream: string;
  /** Prices over the default table's (`DEFAULT_PRICES`): an entry here wins for its models. */
  readonly prices?: PriceTable;
  /** The fleet's rate limits, applied to every model call. */
  readonly rateLimiter?: RateLimiter;
}

/** What one attempt spent, by the count of its meter or its usage log. */
export interface AttemptSpent {
  /** Undefined when nothing was counted: no meter, and no line in the usage log. */
  readonly usage?: Usage;
  readonly meter?: MeterAccount;
  /** The budget (or the missing price) that ended the agent. */
  readonly ended?: MeterRefusal;
  /** What was wrong with the usage log. */
  readonly problem?: string;
}

/** How one attempt's spend is watched while the agent runs. */
export interface SpendWatch {
  /** Variables for the agent: the meter's URL under the names agents read, or the usage log's path. */
  readonly env: Readonly<Record<string, string>>;
  /** Aborts when the attempt's spend reached a budget (or the meter met a model it cannot price): end the agent. */
  readonly signal: AbortSignal;
  /** Once the agent exited: what it spent. */
  finish(): Promise<AttemptSpent>;
}

/**
 * Watches what one attempt spends against the budgets left when it started: through a metering endpoint
 * standing in for `meter.upstream` (`REDLINE_METER_URL`, and `OPENAI_BASE_URL` and `ANTHROPIC_BASE_URL` set
 * to it), or else through the usage log the agent may append to (`REDLINE_USAGE_LOG`).
 */
export async function watchSpend({
  meter,
  budgetsLeft,
  usageLog,
}: {
  meter: AgentMeterOptions | undefined;
  budgetsLeft: BudgetsLeft;
  usageLog: string;
}): Promise<SpendWatch> {
  const budget: SpendBudget = { tokens: budgetsLeft.tokens, costUsd: budgetsLeft.costUsd };
  if (meter !== undefined) {
    const running = await startMeter({
      upstream: meter.upstream,
      prices: { ...DEFAULT_PRICES, ...meter.prices },
      budget,
      ...(meter.rateLimiter === undefined ? {} : { rateLimiter: meter.rateLimiter }),
    });
    return {
      env: { REDLINE_METER_URL: running.url, OPENAI_BASE_URL: running.url, ANTHROPIC_BASE_URL: running.url },
      signal: running.signal,
      async finish() {
        await running.close();
        const account = running.account();
        return { usage: account.spent, meter: account, ...(account.ended === undefined ? {} : { ended: account.ended }) };
      },
    };
  }
  const spend = new AttemptSpend(budget);
  const watch = watchUsageLog({ file: usageLog, spend });
  return {
    env: { REDLINE_USAGE_LOG: usageLog },
    signal: spend.signal,
    async finish() {
      const { lines, problem } = await watch.stop();
      return {
        ...(lines === 0 ? {} : { usage: spend.spent }),
        ...(spend.ended === undefined ? {} : { ended: spend.ended }),
        ...(problem === undefined ? {} : { problem }),
      };
    },
  };
}

/** The proposer error of an attempt whose agent was ended by its spend: `proposer.budget_spent` or `proposer.no_price`. */
export function spendError({ ended, usage = {}, meter }: AttemptSpent & { ended: MeterRefusal }, budgetsLeft: BudgetsLeft): ProposerError {
  if (ended === 'no_price') {
    const model = meter?.calls.findLast((call) => call.refused === 'no_price')?.model;
    return new ProposerError({
      code: 'proposer.no_price',
      message: `the meter refused a call to the model ${JSON.stringify(model ?? '(none named)')}, which has no price, under a cost budget, and ended the agent: add the model to the meter's prices (docs/metering.md)`,
    });
  }
  const spent =
    ended === 'budget_tokens'
      ? `${(usage.inputTokens ?? 0) + (usage.outputTokens ?? 0)} tokens, the ${budgetsLeft.tokens} the run had left (maxTokens)`
      : `${usdWords(usage.costUsd ?? 0)}, the ${usdWords(budgetsLeft.costUsd ?? 0)} the run had left (maxCostUsd)`;
  return new ProposerError({
    code: 'proposer.budget_spent',
    message: `the agent was ended when its attempt had spent ${spent}${meter === undefined ? ', by its usage log' : ''}`,
  });
}
