package dev.danmakuledger.bench.chaos;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Judges what one subscriber received of one room's stream against what SQL holds for the room
 * (docs/sync-server.md, "Room streams"): every CONFIRMED message once, in confirmation-cursor order
 * (the stream's order by contract: cursors 1, 2, 3, … with no number repeated, skipped or out of
 * place, across every reconnection with {@code Last-Event-ID}), each event's seq and idempotency
 * key those of the stored message, and complete up to the room's high-water mark: as many cursors
 * as the room has CONFIRMED messages. Tombstones are not CONFIRMED messages and never reach a
 * stream, so a seq that is a tombstone must not appear.
 */
final class StreamVerdict {
  private StreamVerdict() {}

  /**
   * The problems of one subscriber's stream, empty when it is exact.
   *
   * @param who names the subscriber and room in the problems
   * @param got the events in the order received, over every connection of the subscriber
   * @param confirmed the room's CONFIRMED messages in SQL at the end: seq to idempotency key
   */
  static List<String> problems(String who, List<StreamEvent> got, Map<Long, String> confirmed) {
    List<String> out = new ArrayList<>();
    Set<Long> cursors = new HashSet<>();
    Set<Long> seqs = new HashSet<>();
    long previous = 0;
    for (StreamEvent e : got) {
      if (!cursors.add(e.cursor()) || !seqs.add(e.seq())) {
        out.add(
            who + ": duplicate: cursor " + e.cursor() + " (seq " + e.seq() + ") delivered twice");
      } else if (e.cursor() < previous) {
        out.add(who + ": out of order: cursor " + e.cursor() + " after cursor " + previous);
      } else if (e.cursor() > previous + 1) {
        out.add(
            who
                + ": hole: cursor "
                + e.cursor()
                + " after cursor "
                + previous
                + " (cursors "
                + (previous + 1)
                + ".."
                + (e.cursor() - 1)
                + " never delivered)");
      }
      previous = Math.max(previous, e.cursor());
      String key = confirmed.get(e.seq());
      if (key == null) {
        out.add(who + ": seq " + e.seq() + " delivered, but it is no CONFIRMED message in SQL");
      } else if (!key.equals(e.key())) {
        out.add(who + ": seq " + e.seq() + " delivered with key " + e.key() + ", SQL has " + key);
      }
    }
    if (cursors.size() != confirmed.size()) {
      TreeMap<Long, String> missing = new TreeMap<>(confirmed);
      missing.keySet().removeAll(seqs);
      out.add(
          who
              + ": incomplete: "
              + cursors.size()
              + " distinct messages delivered, the room has "
              + confirmed.size()
              + " CONFIRMED"
              + (missing.isEmpty() ? "" : "; the first missing seq is " + missing.firstKey()));
    }
    return out;
  }

  /** The problems of every subscriber of every room, by subscriber name. */
  static List<String> judgeAll(
      Map<String, List<StreamEvent>> streams,
      Map<String, String> roomOf,
      Map<String, Map<Long, String>> confirmedByRoom) {
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, List<StreamEvent>> e : new TreeMap<>(streams).entrySet()) {
      String room = roomOf.get(e.getKey());
      out.addAll(problems(e.getKey(), e.getValue(), confirmedByRoom.getOrDefault(room, Map.of())));
    }
    return out;
  }
}
