/** Redis: embedded default server, per-room admit/sequence calls, leased message-id node ids. */
package dev.danmakuledger.server.redis;
