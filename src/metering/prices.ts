import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { z } from 'zod';

/** What a model's tokens cost, in US dollars per million tokens. */
export interface ModelPrice {
  readonly input: number;
  readonly output: number;
  /** Prompt tokens read from the endpoint's cache. @default input */
  readonly cachedInput?: number;
  /** Prompt tokens written to the endpoint's cache (Anthropic's cache writes). @default input */
  readonly cacheWrite?: number;
}

/** Prices by model id: a key prices the model of that id and every id that starts with it and a `-` (dated versions). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/** The tokens of one call: `input` counts every prompt token, the cached and cache-written ones included. */
export interface TokenCount {
  readonly input: number;
  readonly cachedInput: number;
  readonly cacheWrite: number;
  readonly output: number;
}

const perMillion = z.number().nonnegative();

/** The shape of a price table in a mission file or a prices file. */
export const priceTableSchema: z.ZodType<PriceTable> = z.record(
  z.string().min(1),
  z
    .object({ input: perMillion, output: perMillion, cachedInput: z.exactOptional(perMillion), cacheWrite: z.exactOptional(perMillion) })
    .strict(),
);

/**
 * The providers' list prices the meter starts from (docs/metering.md says when they were taken), USD per million
 * tokens. Long-context tiers and batch discounts are left out: a call is priced at the standard rate.
 */
export const DEFAULT_PRICES: PriceTable = Object.freeze({
  'gpt-5': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5.1': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-codex': { input: 1.25, cachedInput: 0.125, output: 10 },
  'gpt-5-mini': { input: 0.25, cachedInput: 0.025, output: 2 },
  'gpt-5-nano': { input: 0.05, cachedInput: 0.005, output: 0.4 },
  'gpt-4.1': { input: 2, cachedInput: 0.5, output: 8 },
  'gpt-4.1-mini': { input: 0.4, cachedInput: 0.1, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, cachedInput: 0.025, output: 0.4 },
  'gpt-4o': { input: 2.5, cachedInput: 1.25, output: 10 },
  'gpt-4o-mini': { input: 0.15, cachedInput: 0.075, output: 0.6 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
  'o3-mini': { input: 1.1, cachedInput: 0.55, output: 4.4 },
  'o4-mini': { input: 1.1, cachedInput: 0.275, output: 4.4 },
  'codex-mini-latest': { input: 1.5, cachedInput: 0.375, output: 6 },
  'claude-opus-4': { input: 15, cachedInput: 1.5, cacheWrite: 18.75, output: 75 },
  'claude-opus-4-5': { input: 5, cachedInput: 0.5, cacheWrite: 6.25, output: 25 },
  'claude-sonnet-4': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-7-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-3-5-sonnet': { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 },
  'claude-haiku-4-5': { input: 1, cachedInput: 0.1, cacheWrite: 1.25, output: 5 },
  'claude-3-5-haiku': { input: 0.8, cachedInput: 0.08, cacheWrite: 1, output: 4 },
  'gemini-2.5-pro': { input: 1.25, output: 10 },
  'gemini-2.5-flash': { input: 0.3, output: 2.5 },
  'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
});

/** Whether `key` names `id`: the same, or `id` is a version of it (`claude-sonnet-4-20250514` of `claude-sonnet-4`). */
const names = (key: string, id: string): boolean => id === key || id.startsWith(`${key}-`);

/**
 * The price of a model: the table's entry with the longest key that names its id (or, for a routed id such as
 * `openai/gpt-4o`, the part after the last `/`), so `gpt-4o-mini-2024-07-18` takes `gpt-4o-mini`, not `gpt-4o`.
 * @example
 * priceOf(DEFAULT_PRICES, 'claude-sonnet-4-5-20250929') // { input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 }
 */
export function priceOf(table: PriceTable, model: string | undefined): ModelPrice | undefined {
  if (model === undefined || model === '') return undefined;
  for (const id of model.includes('/') ? [model, model.slice(model.lastIndexOf('/') + 1)] : [model]) {
    const key = Object.keys(table)
      .filter((candidate) => names(candidate, id))
      .sort((a, b) => b.length - a.length)[0];
    if (key !== undefined) return table[key];
  }
  return undefined;
}

/** The dollars a call's tokens cost at `price`: cached and cache-written prompt tokens at their own rates. */
export function costOf(price: ModelPrice, tokens: TokenCount): number {
  const plain = Math.max(0, tokens.input - tokens.cachedInput - tokens.cacheWrite);
  return (
    (plain * price.input +
      tokens.cachedInput * (price.cachedInput ?? price.input) +
      tokens.cacheWrite * (price.cacheWrite ?? price.input) +
      tokens.output * price.output) /
    1_000_000
  );
}

/**
 * A checked price table.
 * @throws {TypeError} naming what is wrong with it.
 */
export function priceTable(raw: unknown, source = 'the price table'): PriceTable {
  const parsed = priceTableSchema.safeParse(raw);
  if (parsed.success) return Object.freeze({ ...parsed.data });
  const issue = parsed.error.issues[0];
  throw new TypeError(
    `Expected ${source} to map model ids to { input, output, cachedInput?, cacheWrite? } in USD per million tokens, got ${issue === undefined ? 'something else' : `${issue.path.join('.') || '(root)'}: ${issue.message}`}`,
  );
}

/**
 * Reads a prices file (JSON or YAML: model id → `{ input, output, cachedInput?, cacheWrite? }`).
 * @throws {TypeError} when it cannot be read or is not a price table.
 */
export async function readPrices(file: string): Promise<PriceTable> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new TypeError(`Expected a readable prices file, got ${file}: ${(error as Error).message}`, { cause: error });
  }
  let raw: unknown;
  try {
    raw = parse(text) as unknown;
  } catch (error) {
    throw new TypeError(`Expected the prices file ${file} to be JSON or YAML, got: ${(error as Error).message}`, { cause: error });
  }
  return priceTable(raw, `the prices file ${file}`);
}
