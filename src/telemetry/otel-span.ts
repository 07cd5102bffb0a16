import type { Context, Span } from '@opentelemetry/api';
import type { OtelApi } from './otel-api.js';
import { attributeText } from './span-text.js';
import type { ChildSpan, SpanAttributes, SpanFailure, TraceSpan } from './trace-span.js';
import type { OtelAttributes, SpanLike, TracerLike } from './tracer.js';

/** Defined attributes, every string capped and made safe. */
export function otelAttributes(attributes: SpanAttributes): OtelAttributes {
  const out: OtelAttributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value !== undefined) out[key] = typeof value === 'string' ? attributeText(value) : value;
  }
  return out;
}

/** What a thrown value says of itself: a redline error's code, else its name. */
function failureOf(error: unknown): SpanFailure {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  return {
    type: typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
  };
}

/** A {@link TraceSpan} over an OpenTelemetry span. */
export class OtelTraceSpan implements TraceSpan {
  readonly #api: OtelApi;
  readonly #tracer: TracerLike;
  readonly #span: SpanLike;
  /** The context this span is the active span of: its children's parent. */
  readonly #context: Context;

  constructor({ api, tracer, span, parent }: { api: OtelApi; tracer: TracerLike; span: SpanLike; parent: Context }) {
    this.#api = api;
    this.#tracer = tracer;
    this.#span = span;
    this.#context = api.trace.setSpan(parent, span as Span);
  }

  get recording(): boolean {
    return this.#span.isRecording();
  }

  set(attributes: SpanAttributes): void {
    this.#span.setAttributes(otelAttributes(attributes));
  }

  fail({ type, message }: SpanFailure): void {
    this.#span.setAttribute('error.type', attributeText(type));
    this.#span.setStatus({ code: this.#api.SpanStatusCode.ERROR, message: attributeText(message) });
  }

  failWith(error: unknown): void {
    const failure = failureOf(error);
    this.#span.recordException({ name: attributeText(failure.type), message: attributeText(failure.message) });
    this.fail(failure);
  }

  async child<T>({ name, attributes = {}, client = false }: ChildSpan, work: (span: TraceSpan) => Promise<T>): Promise<T> {
    const { SpanKind, context } = this.#api;
    const kind = client ? SpanKind.CLIENT : SpanKind.INTERNAL;
    const span = this.#tracer.startSpan(attributeText(name), { kind, attributes: otelAttributes(attributes) }, this.#context);
    const child = new OtelTraceSpan({ api: this.#api, tracer: this.#tracer, span, parent: this.#context });
    try {
      return await context.with(child.#context, () => work(child));
    } catch (error) {
      child.failWith(error);
      throw error;
    } finally {
      span.end();
    }
  }

  end(): void {
    this.#span.end();
  }
}
