/**
 * The local ingest API on loopback (docs/edge-agent.md "Local ingest API"), for programs on the
 * device and never for web pages: {@code POST /v1/danmaku}, {@code GET /v1/status}, {@code GET
 * /metrics}. Errors leave as RFC 9457 problem+json with the stable codes of {@code
 * protocol.error.ErrorCode}; the Host, Origin and Content-Type rules that keep web pages out live
 * in {@link dev.danmakuledger.edge.api.LoopbackGuard}, request validation in {@link
 * dev.danmakuledger.edge.api.RequestValidation}, error mapping in {@link
 * dev.danmakuledger.edge.api.ErrorMapping}.
 */
package dev.danmakuledger.edge.api;
