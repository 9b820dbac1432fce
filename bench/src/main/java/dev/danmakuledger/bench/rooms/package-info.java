/**
 * {@code bin/bench rooms}: one sync server with ten thousand followed rooms (docs/benchmarks.md).
 */
package dev.danmakuledger.bench.rooms;
