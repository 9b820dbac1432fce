package dev.danmakuledger.ui.client;

/**
 * A failed call to the sync server, classified so the console can say in plain words what went
 * wrong and what to do next. The technical detail (status, problem code, cause) stays in the log.
 */
public final class ApiException extends Exception {
  private static final long serialVersionUID = 1L;

  /** What kind of failure, in the terms an operator acts on. */
  public enum Kind {
    /** No HTTP answer at all: connection refused, timeout, DNS, reset. */
    UNREACHABLE,
    /** 401 or 403: the admin token is missing, wrong or not allowed. */
    UNAUTHORIZED,
    /** 404: the thing looked up does not exist. */
    NOT_FOUND,
    /** 409: somebody else changed the thing first. */
    CONFLICT,
    /** Another 4xx: the request was refused as invalid. */
    REJECTED,
    /** A 2xx whose body is not the JSON the contract promises. */
    MALFORMED_RESPONSE,
    /** 5xx or anything else unexpected. */
    SERVER_ERROR
  }

  private final Kind kind;
  private final int status;
  private final String plainMessage;

  /**
   * @param kind the failure class
   * @param status the HTTP status, or 0 when no HTTP answer arrived
   * @param plainMessage one sentence for the operator
   * @param detail technical detail for the log
   * @param cause the underlying exception, or null
   */
  public ApiException(Kind kind, int status, String plainMessage, String detail, Throwable cause) {
    super(detail, cause);
    if (kind == null || plainMessage == null || plainMessage.isBlank()) {
      throw new IllegalArgumentException(
          "got kind=" + kind + " plainMessage=" + plainMessage + ", want both non-empty");
    }
    this.kind = kind;
    this.status = status;
    this.plainMessage = plainMessage;
  }

  public Kind kind() {
    return kind;
  }

  /** The HTTP status, or 0 when the server gave no answer. */
  public int status() {
    return status;
  }

  /** One sentence for the operator: what happened and what to do. */
  public String plainMessage() {
    return plainMessage;
  }
}
