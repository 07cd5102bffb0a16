/** Attribute values as OpenTelemetry takes them. */
export type OtelAttributes = Record<string, string | number | boolean>;

/**
 * The slice of an OpenTelemetry `Span` redline uses; a span of `@opentelemetry/api` 1.x fits it. Declared
 * here so that redline's types name no optional peer.
 */
export interface SpanLike {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setAttributes(attributes: OtelAttributes): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: { name: string; message: string }): void;
  isRecording(): boolean;
  end(): void;
}

/**
 * The slice of an OpenTelemetry `Tracer` redline uses: `trace.getTracer('my-app')` or a provider's
 * `getTracer(...)` fits it.
 */
export interface TracerLike {
  startSpan(name: string, options?: { kind?: number; attributes?: OtelAttributes }, context?: unknown): SpanLike;
}
