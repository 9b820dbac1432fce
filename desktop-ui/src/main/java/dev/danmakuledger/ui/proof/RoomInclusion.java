package dev.danmakuledger.ui.proof;

import java.util.Objects;

/**
 * What the console proved about a message's place in its room log: the verdict, and the facts an
 * operator reads beside the device-log inclusion (docs/console.md, "Inspector").
 *
 * @param verdict verified or not, with the reason
 * @param logSize size of the signed room checkpoint the proof is for, or -1 when unknown
 * @param leafIndex the entry's leaf index, {@code seq - 1}
 * @param entry the room log entry as text, or empty when none was read
 */
public record RoomInclusion(Verdict verdict, long logSize, long leafIndex, String entry) {
  public RoomInclusion {
    Objects.requireNonNull(verdict, "verdict");
    Objects.requireNonNull(entry, "entry");
  }
}
