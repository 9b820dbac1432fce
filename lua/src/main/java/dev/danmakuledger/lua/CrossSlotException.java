package dev.danmakuledger.lua;

/**
 * Redis Cluster refused a call whose keys hash to different slots ({@code CROSSSLOT}). The key
 * layout (a bucket's hash tag on all keys of a call) makes this a bug, so it is never retried.
 */
public final class CrossSlotException extends LuaRedisException {
  CrossSlotException(String message, Throwable cause) {
    super(message, cause);
  }
}
