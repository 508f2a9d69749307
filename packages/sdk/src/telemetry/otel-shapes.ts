/**
 * The few OpenTelemetry API shapes the SDK uses, declared structurally so the core depends on no
 * OpenTelemetry package (not even its types): a `Tracer` from `@opentelemetry/api`
 * (`trace.getTracer(...)`) fits {@link OtelTracer} as it is.
 */

/** An attribute value (`@opentelemetry/api` `AttributeValue`, scalars only here). */
export type OtelAttributeValue = string | number | boolean;

/** `@opentelemetry/api` `Context`: an immutable map from symbol keys to values. */
export interface OtelContext {
  getValue(key: symbol): unknown;
  setValue(key: symbol, value: unknown): OtelContext;
  deleteValue(key: symbol): OtelContext;
}

/** `SpanKind` values of `@opentelemetry/api`. */
export const OtelSpanKind = { INTERNAL: 0, CLIENT: 2 } as const;

/** `SpanStatusCode.ERROR` of `@opentelemetry/api`. */
export const OTEL_STATUS_ERROR = 2;

/** The subset of `@opentelemetry/api` `SpanOptions` the SDK sets. */
export interface OtelSpanOptions {
  kind?: number;
  attributes?: Record<string, OtelAttributeValue>;
}

/** The subset of `@opentelemetry/api` `Span` the SDK calls. */
export interface OtelSpan {
  setAttribute(key: string, value: OtelAttributeValue): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  recordException(exception: Error): void;
  end(): void;
}

/** The subset of `@opentelemetry/api` `Tracer` the SDK calls: `startSpan(name, options, context)`. */
export interface OtelTracer {
  startSpan(name: string, options?: OtelSpanOptions, context?: OtelContext): OtelSpan;
}

/**
 * The key `@opentelemetry/api` stores the active span under in a `Context`
 * (`createContextKey("OpenTelemetry Context Key SPAN")`, which is `Symbol.for` of that name), so
 * a context made here parents spans for any `Tracer` of the API's 1.x line.
 */
const SPAN_KEY = Symbol.for("OpenTelemetry Context Key SPAN");

/** A minimal immutable {@link OtelContext}, the root the SDK's spans hang from. */
class MapContext implements OtelContext {
  readonly #values: ReadonlyMap<symbol, unknown>;

  constructor(values: ReadonlyMap<symbol, unknown> = new Map()) {
    this.#values = values;
  }

  getValue(key: symbol): unknown {
    return this.#values.get(key);
  }

  setValue(key: symbol, value: unknown): OtelContext {
    return new MapContext(new Map(this.#values).set(key, value));
  }

  deleteValue(key: symbol): OtelContext {
    const values = new Map(this.#values);
    values.delete(key);
    return new MapContext(values);
  }
}

/** An empty context: a span started in it is a root span. */
export const ROOT_CONTEXT: OtelContext = new MapContext();

/** `parent` with `span` as its active span (= `trace.setSpan(parent, span)`), to start children in. */
export function contextWithSpan(parent: OtelContext, span: OtelSpan): OtelContext {
  return parent.setValue(SPAN_KEY, span);
}
