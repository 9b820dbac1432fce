package dev.danmakuledger.protocol.error;

import java.util.Locale;

/**
 * The stable error codes of the HTTP API, each with its HTTP status and an RFC 9457 title. The
 * {@link #code()} strings are part of the API: clients branch on them, so they never change.
 * docs/errors.md says what a user should do about each one.
 */
public enum ErrorCode {
  MALFORMED_REQUEST(400, "Request is not well-formed HTTP"),
  MALFORMED_JSON(400, "Request body is not valid JSON for this endpoint"),
  INVALID_FIELD(400, "A request field is invalid"),
  MISSING_IDEMPOTENCY_KEY(400, "Idempotency key is missing"),
  MALFORMED_IDEMPOTENCY_KEY(400, "Idempotency key is malformed"),
  BODY_TOO_LARGE(413, "Request body is too large"),
  UNSUPPORTED_MEDIA_TYPE(415, "Request body media type is not supported"),
  TOO_MANY_RECORDS(413, "Batch has too many records"),
  UNAUTHENTICATED(401, "Device or token is not recognised"),
  FORBIDDEN(403, "Not allowed"),
  BAD_SIGNATURE(403, "Checkpoint signature does not verify"),
  DEVICE_QUARANTINED(403, "Device is quarantined"),
  NOT_FOUND(404, "Not found"),
  METHOD_NOT_ALLOWED(405, "Method is not allowed on this resource"),
  REQUEST_TIMEOUT(408, "Request was not received in time"),
  URI_TOO_LONG(414, "Request target is too long"),
  HEADERS_TOO_LARGE(431, "Request header fields are too large"),
  TOMBSTONE(404, "The room number carries no message"),
  NOT_INTEGRATED(409, "The room number is not yet in the room log"),
  DEVICE_ID_TAKEN(409, "Device id is already enrolled"),
  SIZE_MISMATCH(409, "Batch does not start at the verified log size"),
  VERSION_CONFLICT(409, "Resource was changed concurrently"),
  IDEMPOTENCY_CONFLICT(422, "Idempotency key was used with different content"),
  BAD_PROOF(422, "Records do not produce the checkpoint root"),
  FORK_DETECTED(409, "Device log forked"),
  STORE_FULL(507, "Storage is full"),
  RATE_LIMITED(429, "Too many requests"),
  TOO_MANY_STREAMS_FROM_ADDRESS(429, "Too many room streams from this client address"),
  TOO_MANY_STREAMS(503, "Too many room streams on this instance"),
  REDIS_UNAVAILABLE(503, "Deduplication store is unavailable"),
  SQL_UNAVAILABLE(503, "Database is unavailable"),
  OVERLOADED(503, "Server is at a configured limit"),
  INTERNAL(500, "Internal server error");

  private final int status;
  private final String title;
  private final String code;

  ErrorCode(int status, String title) {
    this.status = status;
    this.title = title;
    this.code = name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Returns the stable lowercase-kebab code, e.g. {@code "idempotency-conflict"}. */
  public String code() {
    return code;
  }

  /** Returns the HTTP status. */
  public int status() {
    return status;
  }

  /** Returns the short human-readable summary, the same for every occurrence. */
  public String title() {
    return title;
  }

  /**
   * Returns the code whose {@link #code()} is {@code code}.
   *
   * @throws IllegalArgumentException if no code matches
   */
  public static ErrorCode fromCode(String code) {
    for (ErrorCode c : values()) {
      if (c.code.equals(code)) {
        return c;
      }
    }
    throw new IllegalArgumentException(
        "error code: got " + (code == null ? "null" : '"' + code + '"') + ", want a known code");
  }
}
