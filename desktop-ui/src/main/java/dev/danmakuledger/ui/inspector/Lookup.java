package dev.danmakuledger.ui.inspector;

import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.key.MalformedKeyException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What an operator typed into the inspector's search box, recognised by its shape: an idempotency
 * key ({@code deviceId:userId:unixMillis:nonce}, docs/architecture.md §3), a decimal message id, or
 * a room and sequence number ({@code room#seq}, {@code room:seq} or {@code room seq}).
 */
sealed interface Lookup {
  Pattern ROOM_SEQ = Pattern.compile("([A-Za-z0-9_.-]{1,64})\\s*[#: ]\\s*([0-9]{1,18})");
  Pattern DIGITS = Pattern.compile("[0-9]{1,40}");

  /** Lookup by idempotency key. */
  record ByKey(IdempotencyKey key) implements Lookup {}

  /** Lookup by message id, decoded into its parts. */
  record ById(long id, MessageId decoded) implements Lookup {}

  /** Lookup by room and sequence number. */
  record BySeq(String room, long seq) implements Lookup {}

  /**
   * Recognises {@code input}.
   *
   * @throws IllegalArgumentException with a sentence saying what is accepted
   */
  static Lookup parse(String input) {
    String s = input == null ? "" : input.strip();
    if (s.isEmpty()) {
      throw new IllegalArgumentException(
          "Type an idempotency key, a message id, or a room and sequence number (lobby#42).");
    }
    if (s.chars().filter(c -> c == ':').count() == 3) {
      try {
        return new ByKey(IdempotencyKey.parse(s));
      } catch (MalformedKeyException e) {
        throw new IllegalArgumentException(
            "That idempotency key is malformed (" + e.part() + "): " + e.getMessage(), e);
      }
    }
    if (DIGITS.matcher(s).matches()) {
      long id;
      try {
        id = Long.parseLong(s);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException("That message id is larger than 64 bits.", e);
      }
      try {
        return new ById(id, MessageId.decode(id));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("That number is not a message id: " + e.getMessage(), e);
      }
    }
    Matcher m = ROOM_SEQ.matcher(s);
    if (m.matches()) {
      long seq = Long.parseLong(m.group(2));
      if (seq < 1) {
        throw new IllegalArgumentException("Sequence numbers start at 1.");
      }
      return new BySeq(m.group(1), seq);
    }
    throw new IllegalArgumentException(
        "Not recognised. Type an idempotency key (device:user:millis:nonce), a message id, or a"
            + " room and sequence number (lobby#42).");
  }
}
