/**
 * A shaped network link for the benchmarks: a user-space TCP proxy with a rate per direction, a
 * round-trip time and dropped connections, which counts the bytes on the wire.
 */
package dev.danmakuledger.bench.link;
