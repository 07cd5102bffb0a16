/** The limits one endpoint (or one model at it) puts on model calls, as `redline limits set` stores them. */
export interface RateLimit {
  /** The endpoint's base URL (an OpenAI-compatible `baseURL`), or the AI SDK provider id of a library model. */
  readonly endpoint: string;
  /** A model id at the endpoint, or {@link ANY_MODEL}: every call to the endpoint counts. */
  readonly model: string;
  /** Requests the endpoint takes per minute; none: requests are not limited. */
  readonly requestsPerMinute?: number | undefined;
  /** Tokens (prompt and completion) the endpoint takes per minute; none: tokens are not limited. */
  readonly tokensPerMinute?: number | undefined;
  /**
   * Seconds of refill the bucket holds: how much may go at once after a quiet spell. 60 lets a whole
   * minute's allowance go in a burst; 1 spreads it evenly, as providers that enforce per second expect.
   * @default 60
   */
  readonly burstSeconds: number;
}

/** The model of a limit that covers every model at its endpoint. */
export const ANY_MODEL = '*';

/** The default of {@link RateLimit.burstSeconds}: a minute's allowance. */
export const DEFAULT_BURST_SECONDS = 60;

/** A base URL with its trailing slashes dropped, so `…/v1/` and `…/v1` are one endpoint. */
export function endpointKey(endpoint: string): string {
  return endpoint.replace(/\/+$/, '');
}

const positive = (name: string, value: unknown): number | undefined => {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new TypeError(`Expected ${name} to be a positive number, got ${JSON.stringify(value) ?? String(value)}`);
  return value;
};

/**
 * A checked copy of a limit: a non-empty endpoint and model, positive numbers, and at least one of the
 * two per-minute limits.
 * @throws {TypeError} naming the field that is wrong.
 */
export function rateLimit(input: {
  readonly endpoint: string;
  readonly model?: string | undefined;
  readonly requestsPerMinute?: number | undefined;
  readonly tokensPerMinute?: number | undefined;
  readonly burstSeconds?: number | undefined;
}): RateLimit {
  const endpoint = endpointKey(input.endpoint.trim());
  if (endpoint === '') throw new TypeError(`Expected an endpoint (a base URL or provider id), got ${JSON.stringify(input.endpoint)}`);
  const model = (input.model ?? ANY_MODEL).trim();
  if (model === '') throw new TypeError(`Expected a model id or "${ANY_MODEL}", got ${JSON.stringify(input.model)}`);
  const requestsPerMinute = positive('requests per minute', input.requestsPerMinute);
  const tokensPerMinute = positive('tokens per minute', input.tokensPerMinute);
  if (requestsPerMinute === undefined && tokensPerMinute === undefined)
    throw new TypeError(`Expected requests per minute or tokens per minute for ${endpoint} (${model}), got neither`);
  const burstSeconds = positive('burst seconds', input.burstSeconds) ?? DEFAULT_BURST_SECONDS;
  return Object.freeze({ endpoint, model, requestsPerMinute, tokensPerMinute, burstSeconds });
}
