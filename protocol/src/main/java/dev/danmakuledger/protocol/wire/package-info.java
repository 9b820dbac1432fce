/** Request and response bodies of the device-facing HTTP API (ARCHITECTURE §4). */
package dev.danmakuledger.protocol.wire;
