/**
 * The HTTP boundary: routes, request validation, error mapping, SSE streams (docs/sync-server.md).
 */
package dev.danmakuledger.server.http;
