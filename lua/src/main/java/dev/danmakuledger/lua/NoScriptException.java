package dev.danmakuledger.lua;

/** {@code NOSCRIPT} persisted after the script was sent in full once: the server drops scripts. */
public final class NoScriptException extends ScriptException {
  NoScriptException(String message, Throwable cause) {
    super("NOSCRIPT", message, cause);
  }
}
