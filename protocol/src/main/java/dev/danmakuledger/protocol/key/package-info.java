/** The idempotency key, deviceId:userId:unixMillis:nonce (docs/architecture.md §3). */
package dev.danmakuledger.protocol.key;
