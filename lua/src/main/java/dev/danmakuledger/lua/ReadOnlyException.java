package dev.danmakuledger.lua;

/**
 * The node answered {@code READONLY}: it is a replica (typically right after a failover), on every
 * attempt the retry policy allowed.
 */
public final class ReadOnlyException extends LuaRedisException {
  ReadOnlyException(String message, Throwable cause) {
    super(message, cause);
  }
}
