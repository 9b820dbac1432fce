/**
 * The in-process parts the demo and the end-to-end tests drive: an edge agent in this JVM, a device
 * without edge dedupe, a proxy that loses replies, a Redis wipe and a reader of the server's HTTP
 * API. Each one talks to the sync server over real sockets, as a device or a client would
 * (docs/architecture.md §4).
 */
package dev.danmakuledger.demo.harness;
