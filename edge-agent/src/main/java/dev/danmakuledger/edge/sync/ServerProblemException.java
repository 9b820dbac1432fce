package dev.danmakuledger.edge.sync;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The server answered with an error status. Carries the status, the RFC 9457 problem when the body
 * was one, and the {@code Retry-After} delay when the server sent one.
 */
final class ServerProblemException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient Problem problem;
  private final Duration retryAfter;
  private final ErrorCode errorCode;

  ServerProblemException(int status, Problem problem, Duration retryAfter, String what) {
    super(
        what
            + ": HTTP "
            + status
            + (problem == null
                ? ""
                : " "
                    + problem.code()
                    + (problem.detail() == null ? "" : ": " + problem.detail())));
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
    this.errorCode = parse(problem);
  }

  /** The known code of {@code problem}, or null. */
  private static ErrorCode parse(Problem problem) {
    if (problem == null || problem.code() == null) {
      return null;
    }
    try {
      return ErrorCode.fromCode(problem.code());
    } catch (IllegalArgumentException unknown) {
      return null;
    }
  }

  public int status() {
    return status;
  }

  /** The problem body, or empty when the server sent something else. */
  public Optional<Problem> problem() {
    return Optional.ofNullable(problem);
  }

  /** The problem's code as sent, or "" when there was no problem body; for messages only. */
  public String code() {
    return problem == null || problem.code() == null ? "" : problem.code();
  }

  /**
   * The problem's stable code (docs/errors.md), or empty when there was no problem body or the
   * server sent a code this agent does not know (a newer server): callers then decide by the HTTP
   * status alone.
   */
  public Optional<ErrorCode> errorCode() {
    return Optional.ofNullable(errorCode);
  }

  /** The server's {@code Retry-After}, or empty. */
  public Optional<Duration> retryAfter() {
    return Optional.ofNullable(retryAfter);
  }

  /** True for answers worth retrying unchanged later: 429, 503 and other 5xx but 501/507. */
  public boolean transientFailure() {
    return status == 429 || (status >= 500 && status != 501 && status != 507);
  }
}
