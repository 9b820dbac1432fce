/** Request and response bodies of the device-facing HTTP API (docs/architecture.md §4). */
package dev.danmakuledger.protocol.wire;
