/** The idempotency key, deviceId:userId:unixMillis:nonce (ARCHITECTURE §3). */
package dev.danmakuledger.protocol.key;
