import type * as OtelApiModule from '@opentelemetry/api';
import { MissingPeerError } from '../errors/missing-peer-error.js';

/** `@opentelemetry/api`, loaded on first use. */
export type OtelApi = typeof OtelApiModule;

/** Where `@opentelemetry/api` 1.x keeps what was registered (a tracer provider under `trace`), shared by every copy of it. */
const GLOBAL_KEY = Symbol.for('opentelemetry.js.api.1');

/**
 * Whether a tracer provider was registered through `@opentelemetry/api` 1.x (by any copy of it). Read from
 * the API's global slot, so that a process that configured no tracing never loads the package.
 */
export function providerRegistered(): boolean {
  const slot = (globalThis as Record<symbol, { readonly trace?: unknown } | undefined>)[GLOBAL_KEY];
  return slot?.trace !== undefined;
}

let loaded: Promise<OtelApi> | undefined;

/**
 * The API, imported once per process.
 * @throws {MissingPeerError} when `@opentelemetry/api` is not installed.
 */
export function otelApi(): Promise<OtelApi> {
  loaded ??= MissingPeerError.load(() => import('@opentelemetry/api'), {
    packageName: '@opentelemetry/api',
    purpose: 'trace runs with OpenTelemetry',
  }).catch((error: unknown) => {
    // A failed load is not kept: the package may be installed later in a long-lived process.
    loaded = undefined;
    throw error;
  });
  return loaded;
}
