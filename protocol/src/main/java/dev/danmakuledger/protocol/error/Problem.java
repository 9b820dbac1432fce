package dev.danmakuledger.protocol.error;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * An RFC 9457 problem details object, the body of every error response ({@value #MEDIA_TYPE}).
 * Besides the standard members it carries the stable {@code code} of an {@link ErrorCode};
 * extension members (RFC 9457 §3.2) are serialised flat next to them, e.g. the server's verified
 * size on a {@code size-mismatch}.
 *
 * @param type {@code https://danmaku-ledger.dev/problems/<code>}
 * @param title the code's title
 * @param status the HTTP status
 * @param detail what went wrong this time, or null
 * @param code the stable error code
 * @param instance the request path or id, or null
 * @param extensions extension members, never null, never a standard member name
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
@JsonPropertyOrder({"type", "title", "status", "detail", "code", "instance"})
public record Problem(
    String type,
    String title,
    int status,
    String detail,
    String code,
    String instance,
    @JsonAnySetter @JsonAnyGetter Map<String, Object> extensions) {

  /** The media type of a serialised problem. */
  public static final String MEDIA_TYPE = "application/problem+json";

  /** The prefix of every problem type URI; the code follows. */
  public static final String TYPE_PREFIX = "https://danmaku-ledger.dev/problems/";

  private static final Set<String> MEMBERS =
      Set.of("type", "title", "status", "detail", "code", "instance");

  /** Validates the members and copies the extensions. */
  public Problem {
    if (status < 100 || status > 599) {
      throw new IllegalArgumentException("problem status: got " + status + ", want 100..599");
    }
    Map<String, Object> copy = new LinkedHashMap<>();
    if (extensions != null) {
      for (Map.Entry<String, Object> e : extensions.entrySet()) {
        checkExtensionName(e.getKey());
        copy.put(e.getKey(), e.getValue());
      }
    }
    extensions = Collections.unmodifiableMap(copy);
  }

  /** Returns the problem for {@code code} with the given detail and no extensions. */
  public static Problem of(ErrorCode code, String detail) {
    Objects.requireNonNull(code, "code");
    return new Problem(
        TYPE_PREFIX + code.code(),
        code.title(),
        code.status(),
        detail,
        code.code(),
        null,
        Map.of());
  }

  /**
   * Returns a copy with the extension member {@code key} set to {@code value}.
   *
   * @throws IllegalArgumentException if {@code key} is null, empty or a standard member name
   */
  public Problem with(String key, Object value) {
    checkExtensionName(key);
    Map<String, Object> copy = new LinkedHashMap<>(extensions);
    copy.put(key, value);
    return new Problem(type, title, status, detail, code, instance, copy);
  }

  /** Returns a copy with {@code instance} set. */
  public Problem withInstance(String instance) {
    return new Problem(type, title, status, detail, code, instance, extensions);
  }

  /** Returns the error code, or empty if {@code code} is not one this version knows. */
  public Optional<ErrorCode> errorCode() {
    for (ErrorCode c : ErrorCode.values()) {
      if (c.code().equals(code)) {
        return Optional.of(c);
      }
    }
    return Optional.empty();
  }

  private static void checkExtensionName(String key) {
    if (key == null || key.isEmpty() || MEMBERS.contains(key)) {
      throw new IllegalArgumentException(
          "problem extension name: got "
              + (key == null ? "null" : '"' + key + '"')
              + ", want a non-empty name other than "
              + MEMBERS);
    }
  }
}
