package dev.danmakuledger.protocol.key;

import dev.danmakuledger.protocol.Ascii;
import dev.danmakuledger.protocol.Quote;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.HexFormat;

/**
 * The client-chosen identity of one danmaku capture, {@code deviceId:userId:unixMillis:nonce}
 * (docs/architecture.md §3; IETF draft-ietf-httpapi-idempotency-key-header). Every retry, replay or
 * restored copy of the same capture carries the same key; the same key with different content is a
 * conflict.
 *
 * <p>Rules: deviceId and userId {@code [A-Za-z0-9_-]{1,64}}; unixMillis exactly 13 ASCII digits
 * (1000000000000..9999999999999, i.e. 2001-09-09 to 2286-11-20); nonce 16..64 hex digits, either
 * case, kept as given (keys compare as exact strings). At most {@value #MAX_LENGTH} characters.
 *
 * @param deviceId the capturing device
 * @param userId the posting user
 * @param unixMillis capture time in milliseconds since the Unix epoch, 13 digits
 * @param nonce random hex digits that make the key unique
 */
public record IdempotencyKey(String deviceId, String userId, long unixMillis, String nonce) {
  /** Longest possible key: 64 + 1 + 64 + 1 + 13 + 1 + 64. */
  public static final int MAX_LENGTH = 208;

  static final int MAX_ID_LENGTH = 64;
  static final int MIN_NONCE_HEX = 16;
  static final int MAX_NONCE_HEX = 64;
  static final long MIN_MILLIS = 1_000_000_000_000L;
  static final long MAX_MILLIS = 9_999_999_999_999L;
  private static final int GENERATED_NONCE_BYTES = 16;

  /**
   * Validates every part.
   *
   * @throws MalformedKeyException naming the first bad part
   */
  public IdempotencyKey {
    checkId("deviceId", deviceId);
    checkId("userId", userId);
    if (unixMillis < MIN_MILLIS || unixMillis > MAX_MILLIS) {
      throw new MalformedKeyException(
          "unixMillis",
          "idempotency key unixMillis: got " + unixMillis + ", want exactly 13 digits");
    }
    checkNonce(nonce);
  }

  /**
   * Parses a key in its canonical form {@code deviceId:userId:unixMillis:nonce}.
   *
   * @throws MalformedKeyException naming the bad part and what is expected
   */
  public static IdempotencyKey parse(String key) {
    if (key == null) {
      throw new MalformedKeyException(
          "format", "idempotency key: got null, want deviceId:userId:unixMillis:nonce");
    }
    if (key.length() > MAX_LENGTH) {
      throw new MalformedKeyException(
          "format",
          "idempotency key: got "
              + key.length()
              + " chars, want at most "
              + MAX_LENGTH
              + " (deviceId:userId:unixMillis:nonce)");
    }
    int first = key.indexOf(':');
    int second = first < 0 ? -1 : key.indexOf(':', first + 1);
    int third = second < 0 ? -1 : key.indexOf(':', second + 1);
    if (third < 0 || key.indexOf(':', third + 1) >= 0) {
      throw new MalformedKeyException(
          "format",
          "idempotency key: got "
              + (key.chars().filter(c -> c == ':').count() + 1)
              + " parts separated by ':' in "
              + Quote.of(key)
              + ", want 4 (deviceId:userId:unixMillis:nonce)");
    }
    String deviceId = key.substring(0, first);
    String userId = key.substring(first + 1, second);
    String millis = key.substring(second + 1, third);
    if (millis.length() != 13 || !Ascii.allDigits(millis) || millis.charAt(0) == '0') {
      checkId("deviceId", deviceId); // the parts are reported in order
      checkId("userId", userId);
      throw new MalformedKeyException(
          "unixMillis",
          "idempotency key unixMillis: got "
              + Quote.of(millis)
              + " ("
              + millis.length()
              + " chars), want exactly 13 ASCII digits without a leading zero");
    }
    // the constructor checks the ids and the nonce
    return new IdempotencyKey(deviceId, userId, Long.parseLong(millis), key.substring(third + 1));
  }

  /**
   * True when {@link #parse} accepts {@code key}; the key is then its own canonical form. Checks
   * without building the parts, for keys read back from storage on every entry of a room log.
   */
  public static boolean isWellFormed(String key) {
    if (key == null || key.length() > MAX_LENGTH) {
      return false;
    }
    int first = key.indexOf(':');
    int second = first < 0 ? -1 : key.indexOf(':', first + 1);
    int third = second < 0 ? -1 : key.indexOf(':', second + 1);
    if (third < 0 || key.indexOf(':', third + 1) >= 0) {
      return false;
    }
    int nonce = key.length() - third - 1;
    return idAt(key, 0, first)
        && idAt(key, first + 1, second)
        && third - second - 1 == 13
        && key.charAt(second + 1) != '0'
        && Ascii.allDigits(key, second + 1, third)
        && nonce >= MIN_NONCE_HEX
        && nonce <= MAX_NONCE_HEX
        && Ascii.allHex(key, third + 1, key.length());
  }

  private static boolean idAt(String key, int from, int to) {
    return to > from && to - from <= MAX_ID_LENGTH && Ascii.allIdChars(key, from, to);
  }

  /**
   * Creates a fresh key stamped with the clock's current time and a 16-byte random nonce (32
   * lowercase hex digits).
   *
   * @throws MalformedKeyException if an id is malformed or the clock is outside 13-digit millis
   */
  public static IdempotencyKey generate(
      String deviceId, String userId, Clock clock, SecureRandom random) {
    byte[] nonce = new byte[GENERATED_NONCE_BYTES];
    random.nextBytes(nonce);
    return new IdempotencyKey(deviceId, userId, clock.millis(), HexFormat.of().formatHex(nonce));
  }

  /** Returns true if {@code value} is a valid device or user id, {@code [A-Za-z0-9_-]{1,64}}. */
  public static boolean isValidId(String value) {
    return value != null
        && !value.isEmpty()
        && value.length() <= MAX_ID_LENGTH
        && Ascii.allIdChars(value);
  }

  /** Returns the canonical key, {@code deviceId:userId:unixMillis:nonce}. */
  @Override
  public String toString() {
    return deviceId + ':' + userId + ':' + unixMillis + ':' + nonce;
  }

  private static void checkId(String part, String value) {
    if (!isValidId(value)) {
      throw new MalformedKeyException(
          part,
          "idempotency key "
              + part
              + ": got "
              + Quote.of(value)
              + (value == null ? "" : " (" + value.length() + " chars)")
              + ", want 1 to 64 of [A-Za-z0-9_-]");
    }
  }

  private static void checkNonce(String nonce) {
    String problem;
    if (nonce == null || nonce.length() < MIN_NONCE_HEX) {
      problem = "want at least " + MIN_NONCE_HEX + " hex digits";
    } else if (nonce.length() > MAX_NONCE_HEX) {
      problem = "want at most " + MAX_NONCE_HEX + " hex digits";
    } else if (!Ascii.allHex(nonce)) {
      problem = "want only hex digits [0-9a-fA-F]";
    } else {
      return;
    }
    throw new MalformedKeyException(
        "nonce",
        "idempotency key nonce: got "
            + Quote.of(nonce)
            + (nonce == null ? "" : " (" + nonce.length() + " chars)")
            + ", "
            + problem);
  }
}
