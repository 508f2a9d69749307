/**
 * Observability: OpenTelemetry GenAI spans through a tracer the caller passes in (no
 * OpenTelemetry dependency), and the {@link Logger} the SDK's diagnostics go to.
 * @module
 */
export { consoleLogger, type Logger } from "./logger.js";
export type { OtelAttributeValue, OtelContext, OtelSpan, OtelSpanOptions, OtelTracer } from "./otel-shapes.js";
