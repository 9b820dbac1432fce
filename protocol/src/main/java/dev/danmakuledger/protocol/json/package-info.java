/** The shared, strict JSON configuration of the HTTP API. */
package dev.danmakuledger.protocol.json;
