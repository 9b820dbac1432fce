package dev.danmakuledger.server;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A refused request, carrying the stable {@link ErrorCode} the HTTP layer turns into an RFC 9457
 * problem, a detail telling the caller what to do, and extension members (e.g. the server's
 * verified size on {@code size-mismatch}).
 */
public final class LedgerException extends RuntimeException {
  private final ErrorCode code;
  private final Map<String, Object> extensions;

  public LedgerException(ErrorCode code, String detail) {
    this(code, detail, Map.of());
  }

  public LedgerException(ErrorCode code, String detail, Map<String, Object> extensions) {
    super(detail);
    this.code = Objects.requireNonNull(code, "code");
    this.extensions = new LinkedHashMap<>(extensions);
  }

  public ErrorCode code() {
    return code;
  }

  /** The extension members (RFC 9457 §3.2), e.g. {@code retryAfterSeconds} on rate-limited. */
  public Map<String, Object> extensions() {
    return Map.copyOf(extensions);
  }

  /** The problem body for this error. */
  public Problem problem() {
    Problem p = Problem.of(code, getMessage());
    for (Map.Entry<String, Object> e : extensions.entrySet()) {
      p = p.with(e.getKey(), e.getValue());
    }
    return p;
  }
}
