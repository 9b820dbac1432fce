package dev.danmakuledger.protocol.record;

/**
 * A danmaku record, or its canonical bytes, that breaks a rule of docs/architecture.md §3 or of
 * docs/canonical-record.md. {@link #field()} names the offending field, or {@code "encoding"} for
 * structural faults of the canonical bytes (truncation, trailing bytes, unknown version, bad
 * length).
 */
public final class InvalidRecordException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  private final String field;

  InvalidRecordException(String field, String message) {
    super(message);
    this.field = field;
  }

  InvalidRecordException(String field, String message, Throwable cause) {
    super(message, cause);
    this.field = field;
  }

  /** Returns the record field at fault, as named in the record, or {@code "encoding"}. */
  public String field() {
    return field;
  }
}
