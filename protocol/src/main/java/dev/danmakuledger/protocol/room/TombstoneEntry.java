package dev.danmakuledger.protocol.room;

import dev.danmakuledger.protocol.Quote;
import java.util.regex.Pattern;

/**
 * A room log entry for a sequence number that carries no message: {@code v1 <seq> T <reason>}
 * ({@code docs/room-log.md}; docs/architecture.md §5: every number is a message or an explicit
 * tombstone). The reason is a short code, lowercase words joined by '-'; {@link TombstoneReason}
 * lists the codes the server writes, and verifiers accept any code of the right shape so that new
 * codes do not need a new format version.
 *
 * @param seq room sequence number, {@code >= 1}
 * @param reason 1..32 characters, {@code [a-z0-9]+(-[a-z0-9]+)*}
 */
public record TombstoneEntry(long seq, String reason) implements RoomLogEntry {
  static final String TYPE = "T";
  static final int MAX_REASON = 32;
  private static final Pattern REASON = Pattern.compile("[a-z0-9]+(-[a-z0-9]+)*");

  /** Validates the fields. */
  public TombstoneEntry {
    if (seq < 1) {
      throw new IllegalArgumentException("seq: got " + seq + ", want >= 1");
    }
    if (reason == null || reason.length() > MAX_REASON || !REASON.matcher(reason).matches()) {
      throw new IllegalArgumentException(
          "tombstone reason: got "
              + Quote.of(reason)
              + ", want 1.."
              + MAX_REASON
              + " of lowercase words joined by '-'");
    }
  }

  /** Returns the tombstone for {@code seq} with a known reason. */
  public static TombstoneEntry of(long seq, TombstoneReason reason) {
    return new TombstoneEntry(seq, reason.code());
  }

  @Override
  public String text() {
    return "v1 " + seq + " " + TYPE + " " + reason;
  }
}
