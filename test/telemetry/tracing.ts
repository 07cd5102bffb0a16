import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';

/** A tracer whose spans end up in memory, and which spans were started and never ended. */
export function memoryTracing() {
  const exporter = new InMemorySpanExporter();
  const open = new Set<string>();
  const tracking: SpanProcessor = {
    onStart: (span) => void open.add(span.spanContext().spanId),
    onEnd: (span) => void open.delete(span.spanContext().spanId),
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new BasicTracerProvider({ spanProcessors: [tracking, new SimpleSpanProcessor(exporter)] });
  return { provider, tracer: provider.getTracer('test'), spans: () => exporter.getFinishedSpans(), open };
}

/** The spans as an indented outline of their names, children in start order: the tree at a glance. */
export function outline(spans: readonly ReadableSpan[]): string[] {
  const lines: string[] = [];
  const ids = new Set(spans.map((span) => span.spanContext().spanId));
  const children = (parent: string | undefined) =>
    spans
      .filter((span) => {
        const id = span.parentSpanContext?.spanId;
        return parent === undefined ? id === undefined || !ids.has(id) : id === parent;
      })
      .sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
  const walk = (parent: string | undefined, depth: number): void => {
    for (const span of children(parent)) {
      lines.push(`${'  '.repeat(depth)}${span.name}`);
      walk(span.spanContext().spanId, depth + 1);
    }
  };
  walk(undefined, 0);
  return lines;
}

/** The one span named `name`. */
export function only(spans: readonly ReadableSpan[], name: string): ReadableSpan {
  const found = spans.filter((span) => span.name === name);
  if (found.length !== 1) throw new Error(`Expected one span named ${name}, got ${found.length}`);
  return found[0] as ReadableSpan;
}
