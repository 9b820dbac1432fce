/** The HTTP boundary: routes, request validation, error mapping, SSE streams (issue 5). */
package dev.danmakuledger.server.http;
