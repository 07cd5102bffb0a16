import { MissingPeerError } from '../errors/missing-peer-error.js';
import { otelApi, providerRegistered } from './otel-api.js';
import { OtelTraceSpan, otelAttributes } from './otel-span.js';
import { NO_TRACE, type SpanAttributes, type TraceSpan } from './trace-span.js';
import type { TracerLike } from './tracer.js';

/** The instrumentation scope of redline's spans. */
export const TRACER_NAME = 'redline';

export interface StartTraceOptions {
  /** The tracer to use; without one, the registered provider's (if any). */
  readonly tracer?: TracerLike | undefined;
  readonly name: string;
  readonly attributes: SpanAttributes;
}

/**
 * Opens a root-level span (a child of whatever span is active), or returns {@link NO_TRACE} when nothing
 * would record it: no tracer given and no tracer provider registered. `@opentelemetry/api` is imported only
 * when a span is opened, once per process.
 * @throws {MissingPeerError} when a tracer is given but `@opentelemetry/api` is not installed.
 */
export async function startTrace({ tracer, name, attributes }: StartTraceOptions): Promise<TraceSpan> {
  if (tracer === undefined && !providerRegistered()) return NO_TRACE;
  // A provider registered through a copy of the API this package cannot import: nothing to trace with.
  const api = await otelApi().catch((error: unknown) => {
    if (tracer === undefined && error instanceof MissingPeerError) return undefined;
    throw error;
  });
  if (api === undefined) return NO_TRACE;
  const used: TracerLike = tracer ?? api.trace.getTracer(TRACER_NAME);
  const parent = api.context.active();
  const span = used.startSpan(name, { kind: api.SpanKind.INTERNAL, attributes: otelAttributes(attributes) }, parent);
  return new OtelTraceSpan({ api, tracer: used, span, parent });
}
