// What a metering endpoint keeps of an agent's model calls (docs/metering.md): sizes, times and usage, never a
// header or a body, so a key the agent sends cannot reach the record. Kept in the attempt's account.

/** The model-call protocols a meter counts; `other` is any other request it forwarded (a model list, a token count). */
export type ModelProtocol = 'responses' | 'chat' | 'messages' | 'other';

/** Why a meter refused a call: the attempt's token or cost budget was spent, or its model has no price under a cost budget. */
export type MeterRefusal = 'budget_tokens' | 'budget_cost' | 'no_price';

/** One model call as the meter saw it. */
export interface ModelCall {
  /** OpenAI Responses (`…/responses`), Chat Completions (`…/chat/completions`), Anthropic Messages (`…/messages`). */
  readonly protocol: ModelProtocol;
  /** The `model` the request named. */
  readonly model?: string;
  readonly stream: boolean;
  /** The HTTP status the agent got: the endpoint's, or the meter's own when it refused the call or could not reach it. */
  readonly status: number;
  /** When the call arrived, in milliseconds since the meter started. */
  readonly atMs: number;
  /** From its arrival to the last byte of the answer. */
  readonly durationMs: number;
  /** Bytes of the request body sent to the endpoint. */
  readonly bytesUp: number;
  /** Bytes of the answer body passed back to the agent. */
  readonly bytesDown: number;
  /** Every prompt token, cached ones included, as the answer reported them. */
  readonly inputTokens?: number;
  /** Of `inputTokens`: read from the endpoint's prompt cache. */
  readonly cachedInputTokens?: number;
  /** Of `inputTokens`: written to the endpoint's prompt cache (Anthropic). */
  readonly cacheWriteTokens?: number;
  readonly outputTokens?: number;
  /** Priced from the meter's table; absent when the model has no price. */
  readonly costUsd?: number;
  /** How long the call waited for the rate limits' turn. */
  readonly waitedMs?: number;
  readonly refused?: MeterRefusal;
  /** Why the endpoint could not be reached, or why the answer was cut off (a system error code). */
  readonly error?: string;
}

/** Tokens and dollars spent through a meter. */
export interface MeterSpend {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Absent when no call had a price. */
  readonly costUsd?: number;
}

/** The meter's part of an attempt's account: its calls (the latest ones, when there were many) and whether it ended the agent. */
export interface MeterAccount {
  /** What every call of the attempt spent, the dropped ones included. */
  readonly spent: MeterSpend;
  readonly calls: readonly ModelCall[];
  /** Earlier calls not kept in `calls`. */
  readonly dropped: number;
  /** Set when the meter refused a call and ended the agent. */
  readonly ended?: MeterRefusal;
}

/** `1,234`. */
const count = (value: number): string => value.toLocaleString('en-US');

/** Dollars to at most four decimals: summed prices carry floating-point noise. */
export const usdWords = (value: number): string => `$${Number(value.toFixed(4))}`;

/**
 * The meter's account in one line, for `ledger show` and a brief: `7 model calls through the meter (responses ×7):
 * 12,345 in, 2,345 out tokens, $0.0421; ended the agent: budget_cost`.
 */
export function meterLine(meter: MeterAccount): string {
  const { calls, spent } = meter;
  const total = calls.length + meter.dropped;
  const protocols = new Map<string, number>();
  for (const call of calls) protocols.set(call.protocol, (protocols.get(call.protocol) ?? 0) + 1);
  const kinds = [...protocols].map(([protocol, times]) => `${protocol} ×${times}`).join(', ');
  return [
    `${total} model call${total === 1 ? '' : 's'} through the meter${kinds === '' ? '' : ` (${kinds}${meter.dropped > 0 ? ` of the last ${calls.length}` : ''})`}`,
    `: ${count(spent.inputTokens)} in, ${count(spent.outputTokens)} out tokens`,
    ...(spent.costUsd === undefined ? [] : [`, ${usdWords(spent.costUsd)}`]),
    ...(meter.ended === undefined ? [] : [`; ended the agent: ${meter.ended}`]),
  ].join('');
}

/**
 * What a run or attempt spent, in words: `12,345 tokens (10,000 in, 2,345 out), $0.0421`; undefined when it
 * spent nothing it reported.
 */
export function spentWords({
  inputTokens,
  outputTokens,
  costUsd,
}: {
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}): string | undefined {
  if (inputTokens + outputTokens === 0 && costUsd === 0) return undefined;
  const tokens = `${count(inputTokens + outputTokens)} tokens (${count(inputTokens)} in, ${count(outputTokens)} out)`;
  return costUsd === 0 ? tokens : `${tokens}, ${usdWords(costUsd)}`;
}
