package dev.danmakuledger.lua;

/**
 * Base of the typed failures of a script call: Redis error replies and transport failures mapped
 * the way Lettuce maps {@code NOSCRIPT}/{@code BUSY} to exception subtypes (docs/lua-scripts.md,
 * "Errors and retries").
 */
public abstract class LuaRedisException extends RuntimeException {
  LuaRedisException(String message, Throwable cause) {
    super(message, cause);
  }
}
