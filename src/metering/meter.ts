import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { MeterAccount, MeterRefusal, MeterSpend, ModelCall, ModelProtocol } from '../core/model-call.js';
import { usdWords } from '../core/model-call.js';
import { ANY_MODEL, endpointKey } from '../limits/rate-limit.js';
import type { RateGrant, RateLimiter } from '../limits/rate-limiter.js';
import { forward, MAX_REQUEST_BYTES, readBody, sendJson } from './forward.js';
import { costOf, DEFAULT_PRICES, priceOf, type PriceTable } from './prices.js';
import { errorAnswer, protocolOf, readRequest, refusalAnswer, type CallRequest } from './protocols.js';
import { AttemptSpend, type SpendBudget } from './spend.js';

export interface MeterOptions {
  /**
   * The endpoint's base URL the meter stands in for: a request to `<meter url>/x` goes to `<upstream>/x`
   * (`https://api.openai.com/v1` for OpenAI clients, `https://api.anthropic.com` for Anthropic's).
   */
  readonly upstream: string;
  /** Prices of the models called. @default DEFAULT_PRICES */
  readonly prices?: PriceTable;
  /** What the attempt may spend; without one the meter counts and refuses nothing. */
  readonly budget?: SpendBudget;
  /** Holds every model call to the fleet's rate limits of `upstream` (its endpoint key) and the call's model. */
  readonly rateLimiter?: RateLimiter;
  /** Calls kept in the account, the latest. @default 500 */
  readonly keepCalls?: number;
  /** @default Date.now */
  readonly now?: () => number;
}

/** A metering endpoint for one attempt (docs/metering.md). */
export interface Meter {
  /** `http://127.0.0.1:<port>`: the base URL to give the agent in place of the upstream's. */
  readonly url: string;
  /** Aborts when the meter refused a call and the agent is to be ended; its reason is the {@link MeterRefusal}. */
  readonly signal: AbortSignal;
  /** What the calls spent so far. */
  spent(): MeterSpend;
  /** The spend, the calls kept and why the meter ended the agent: the attempt's evidence. */
  account(): MeterAccount;
  /** Stops listening and cuts every call still under way. */
  close(): Promise<void>;
}

/** Output tokens a call that sets no cap reserves of a token rate limit; it settles with what it used. */
const DEFAULT_OUTPUT_TOKENS = 1024;

/**
 * The upstream of a meter, checked.
 * @throws {TypeError} when it is not an http(s) URL.
 */
export function upstreamUrl(upstream: string): URL {
  let base: URL | undefined;
  try {
    base = new URL(upstream);
  } catch {
    base = undefined;
  }
  if (base === undefined || (base.protocol !== 'http:' && base.protocol !== 'https:'))
    throw new TypeError(`Expected the meter's upstream to be an http(s) URL, got ${JSON.stringify(upstream)}`);
  return base;
}

/** Why a call is refused, in the words the agent reads. */
function refusalMessage(reason: MeterRefusal, spent: MeterSpend, budget: SpendBudget, model: string | undefined): string {
  if (reason === 'no_price')
    return `redline's meter has no price for the model ${JSON.stringify(model ?? '(none named)')}, and the run has a cost budget: add the model to the meter's prices`;
  const used =
    reason === 'budget_tokens'
      ? `${spent.inputTokens + spent.outputTokens} tokens of the ${budget.tokens} left`
      : `${usdWords(spent.costUsd ?? 0)} of the ${usdWords(budget.costUsd ?? 0)} left`;
  return `redline's meter: the run's ${reason === 'budget_tokens' ? 'token' : 'cost'} budget is spent (${used} when this attempt started); no more model calls`;
}

/**
 * Starts a metering endpoint on 127.0.0.1 (a free port) for one attempt: a pass-through to `upstream` that
 * counts the usage each OpenAI Responses, Chat Completions and Anthropic Messages answer reports (whole or
 * streamed), prices it, keeps each call's sizes and times, holds calls to the rate limits, and once the spend
 * reaches the budget refuses the next call in the protocol's own error shape and fires `signal`. A call under
 * way when the budget is reached is forwarded to its end. Headers go through untouched and are never kept.
 * @throws {TypeError} for an upstream that is not an http(s) URL.
 * @example
 * const meter = await startMeter({ upstream: 'https://api.openai.com/v1', budget: { costUsd: 0.5 } });
 * // run the agent with OPENAI_BASE_URL=meter.url, ending it when meter.signal aborts
 * await meter.close();
 * meter.account(); // { spent: { inputTokens, outputTokens, costUsd }, calls: [...], dropped: 0, ended?: 'budget_cost' }
 */
export async function startMeter({
  upstream,
  prices = DEFAULT_PRICES,
  budget = {},
  rateLimiter,
  keepCalls = 500,
  now = Date.now,
}: MeterOptions): Promise<Meter> {
  const base = upstreamUrl(upstream);
  const prefix = base.pathname.replace(/\/+$/, '');
  const endpoint = endpointKey(upstream);
  const send = base.protocol === 'https:' ? httpsRequest : httpRequest;
  const spend = new AttemptSpend(budget);
  const calls: ModelCall[] = [];
  let dropped = 0;
  const startedAt = now();

  const keep = (call: ModelCall): void => {
    calls.push(call);
    if (calls.length > keepCalls) {
      calls.shift();
      dropped += 1;
    }
  };

  /** Refuses a model call the budget or the prices do not allow, and ends the agent; undefined lets it go. */
  const refusal = (
    protocol: ModelProtocol,
    call: CallRequest,
  ): { reason: MeterRefusal; answer: { status: number; body: unknown } } | undefined => {
    const reason: MeterRefusal | undefined =
      spend.ended ??
      spend.reached ??
      (protocol !== 'other' && budget.costUsd !== undefined && priceOf(prices, call.model) === undefined ? 'no_price' : undefined);
    if (reason === undefined) return undefined;
    const message = refusalMessage(reason, spend.spent, budget, call.model);
    return { reason, answer: refusalAnswer(protocol, reason === 'no_price' ? 'no_price' : 'budget', message) };
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const arrived = now();
    const path = request.url ?? '/';
    const protocol = protocolOf(new URL(path, 'http://meter').pathname);
    const body = await readBody(request);
    const call = body === undefined ? undefined : protocol === 'other' ? { stream: false, body } : readRequest(protocol, body);
    const facts = {
      protocol,
      ...(call?.model === undefined ? {} : { model: call.model }),
      stream: call?.stream ?? false,
      atMs: arrived - startedAt,
      bytesUp: 0,
    };
    if (call === undefined) {
      const bytesDown = sendJson(
        response,
        errorAnswer(protocol, 413, {
          type: 'invalid_request_error',
          message: `redline's meter takes request bodies up to ${MAX_REQUEST_BYTES} bytes`,
        }),
      );
      keep({ ...facts, status: 413, durationMs: now() - arrived, bytesDown });
      return;
    }
    const refused = refusal(protocol, call);
    if (refused !== undefined) {
      spend.end(refused.reason);
      const bytesDown = sendJson(response, refused.answer);
      keep({ ...facts, status: refused.answer.status, durationMs: now() - arrived, bytesDown, refused: refused.reason });
      return;
    }
    // Only model calls wait for the rate limits: a model list or a token count costs the endpoint's quota nothing.
    const gone = new AbortController();
    response.once('close', () => gone.abort());
    const estimate = Math.ceil(call.body.length / 4) + (call.maxOutputTokens ?? DEFAULT_OUTPUT_TOKENS);
    let grant: RateGrant | undefined;
    if (rateLimiter !== undefined && protocol !== 'other') {
      try {
        grant = await rateLimiter.acquire({ endpoint, model: call.model ?? ANY_MODEL, tokens: estimate }, { signal: gone.signal });
      } catch {
        keep({ ...facts, status: 499, durationMs: now() - arrived, bytesDown: 0, error: 'closed while waiting for the rate limits' });
        return;
      }
    }
    const waited = grant === undefined ? {} : { waitedMs: grant.waitedMs };
    const target = new URL(base);
    const query = path.indexOf('?');
    target.pathname = `${prefix}${query === -1 ? path : path.slice(0, query)}`;
    target.search = query === -1 ? '' : path.slice(query);
    const outcome = await forward({ send, target, request, response, protocol, body: call.body });
    const priced = priceOf(prices, call.model);
    const usage = outcome.usage;
    const costUsd = usage === undefined || priced === undefined ? undefined : costOf(priced, usage);
    if (usage !== undefined) spend.add({ inputTokens: usage.input, outputTokens: usage.output, costUsd });
    await grant?.settle(usage === undefined ? estimate : usage.input + usage.output).catch(() => undefined);
    keep({
      ...facts,
      status: outcome.status,
      durationMs: now() - arrived,
      bytesUp: outcome.bytesUp,
      bytesDown: outcome.bytesDown,
      ...(usage === undefined
        ? {}
        : {
            inputTokens: usage.input,
            ...(usage.cachedInput > 0 ? { cachedInputTokens: usage.cachedInput } : {}),
            ...(usage.cacheWrite > 0 ? { cacheWriteTokens: usage.cacheWrite } : {}),
            outputTokens: usage.output,
          }),
      ...(costUsd === undefined ? {} : { costUsd }),
      ...waited,
      ...(outcome.error === undefined ? {} : { error: outcome.error }),
    });
  };

  // Calls under way, so that closing waits for their records: a call cut off at the end is still in the account.
  const underWay = new Set<Promise<void>>();
  const server = createServer((request, response) => {
    const call = handle(request, response).catch((error: unknown) => {
      if (!response.headersSent)
        sendJson(
          response,
          errorAnswer('other', 500, { type: 'server_error', message: `redline's meter failed: ${(error as Error).message}` }),
        );
      else response.destroy();
    });
    underWay.add(call);
    void call.finally(() => underWay.delete(call));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    signal: spend.signal,
    spent: () => spend.spent,
    account: () => ({ spent: spend.spent, calls: [...calls], dropped, ...(spend.ended === undefined ? {} : { ended: spend.ended }) }),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, ...underWay]);
    },
  };
}
