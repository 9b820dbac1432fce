/**
 * W3C Trace Context for batches (docs/operations.md, "Tracing"): the {@code traceparent} an edge
 * agent sends, the trace id in log lines, problem bodies and alerts, and OpenTelemetry spans of the
 * pipeline stages, exported over OTLP only when an endpoint is configured.
 */
package dev.danmakuledger.server.tracing;
