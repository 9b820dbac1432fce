/** Stable error codes and RFC 9457 problem details (docs/errors.md). */
package dev.danmakuledger.protocol.error;
