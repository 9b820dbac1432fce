package dev.danmakuledger.protocol.testing;

import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.EncodedRecord;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The attack on held text that a public room log invites (docs/security.md, "What the room log
 * reveals"): a room log entry publishes the device id, the device-log index, the idempotency key
 * and the device leaf hash of every message, also of one held back for review. Knowing the room and
 * the capture time from the key, an attacker encodes each guessed text with the default mode,
 * colour and font size and every capture clock within a window after the key's time, and compares
 * leaf hashes. A version 1 leaf confirms the right guess; a version 2 leaf also commits to a
 * 128-bit blind that the log never publishes, so no guess is confirmed.
 */
public final class HeldTextSearch {
  private HeldTextSearch() {}

  /** What the search did: the text it confirmed, if any, and how many guesses it hashed. */
  public record Result(Optional<String> text, long guesses) {}

  /**
   * Guesses the text of the held record at {@code index} of its device log in {@code room} whose
   * public leaf hash is {@code leafHash}, trying each text of {@code dictionary} with each capture
   * clock from the key's time to {@code windowMs} after it.
   */
  public static Result search(
      byte[] leafHash,
      IdempotencyKey key,
      String room,
      long index,
      List<String> dictionary,
      int windowMs) {
    long guesses = 0;
    for (String text : dictionary) {
      EncodedRecord guess =
          new DanmakuRecord(
                  key, key.deviceId(), room, key.userId(), text, null, 1, 0xFFFFFF, 25, 0, 0)
              .encoded();
      for (long ms = key.unixMillis(); ms <= key.unixMillis() + windowMs; ms++) {
        guesses++;
        byte[] bytes = guess.canonicalAt(index, new Hlc(ms, 0).pack());
        if (Arrays.equals(Rfc6962.leafHash(bytes), leafHash)) {
          return new Result(Optional.of(text), guesses);
        }
      }
    }
    return new Result(Optional.empty(), guesses);
  }
}
