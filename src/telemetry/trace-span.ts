/** Attribute values a span takes; `undefined` values are left out. */
export type SpanAttributes = Readonly<Record<string, string | number | boolean | undefined>>;

/** A child span to open: its name, attributes, and whether it calls out of the process (a model). */
export interface ChildSpan {
  readonly name: string;
  readonly attributes?: SpanAttributes;
  /** A call to another service (a model): span kind `CLIENT`. @default false (`INTERNAL`) */
  readonly client?: boolean;
}

/** Why a span failed: `error.type` and the status message. */
export interface SpanFailure {
  readonly type: string;
  readonly message: string;
}

/**
 * The slice of a span the loop writes to. Every string it is given is untrusted: each implementation caps
 * it (`attributeText`). Without tracing it is {@link NO_TRACE}, whose methods do nothing.
 */
export interface TraceSpan {
  /** Whether anything records this span: attributes that cost work to compute can be skipped when not. */
  readonly recording: boolean;
  set(attributes: SpanAttributes): void;
  /** Sets the span's status to error, with `error.type`. */
  fail(failure: SpanFailure): void;
  /** Fails the span with a thrown value (its code or name, and message), recorded as an exception event too. */
  failWith(error: unknown): void;
  /**
   * Runs `work` in a child span, the active span while it runs (so spans the work opens nest under it). The
   * child ends when `work` settles, failed with the error's code or name when it throws.
   */
  child<T>(spec: ChildSpan, work: (span: TraceSpan) => Promise<T>): Promise<T>;
  end(): void;
}

/** Tracing off: no span, no work. */
export const NO_TRACE: TraceSpan = Object.freeze({
  recording: false,
  set: () => undefined,
  fail: () => undefined,
  failWith: () => undefined,
  child: <T>(_spec: ChildSpan, work: (span: TraceSpan) => Promise<T>): Promise<T> => work(NO_TRACE),
  end: () => undefined,
});
