package dev.danmakuledger.lua;

import java.util.Objects;

/**
 * A script or Redis answered with an error reply that retrying cannot fix: the scripts' own codes
 * ({@code BADARG}, {@code CORRUPT}, {@code NOFREEID}, {@code BADVERSION}) or a generic {@code ERR}.
 * Never retried.
 */
public class ScriptException extends LuaRedisException {
  private final String code;

  ScriptException(String code, String message, Throwable cause) {
    super(message, cause);
    this.code = Objects.requireNonNull(code, "code");
  }

  /** The error code: the first word of the error reply, e.g. {@code BADARG}. */
  public String code() {
    return code;
  }
}
