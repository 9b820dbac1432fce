package dev.danmakuledger.edge.sync;

import dev.danmakuledger.protocol.error.Problem;
import java.io.IOException;
import java.time.Duration;
import java.util.Optional;

/**
 * The server answered with an error status. Carries the status, the RFC 9457 problem when the body
 * was one, and the {@code Retry-After} delay when the server sent one.
 */
public final class ServerProblemException extends IOException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final transient Problem problem;
  private final Duration retryAfter;

  public ServerProblemException(int status, Problem problem, Duration retryAfter, String what) {
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
  }

  public int status() {
    return status;
  }

  /** The problem body, or empty when the server sent something else. */
  public Optional<Problem> problem() {
    return Optional.ofNullable(problem);
  }

  /** The problem's stable code, or "" when there was no problem body. */
  public String code() {
    return problem == null || problem.code() == null ? "" : problem.code();
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
