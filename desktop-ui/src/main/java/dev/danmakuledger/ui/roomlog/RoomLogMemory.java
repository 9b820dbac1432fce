package dev.danmakuledger.ui.roomlog;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What the console remembers of every room log in its history between runs: the last verified
 * checkpoint of each log and every split view detected, so a restart neither forgets an alert nor
 * accepts a checkpoint that contradicts one verified before.
 *
 * <p>A room log is the room's name under one log key: two servers (a staging and a production one,
 * or a server re-created with a new key) that both have a room {@code lobby} keep two logs, and the
 * history holds a checkpoint for each, under {@link #id}. Entries of a history written before the
 * console kept the key are under the room's name alone and stand for the room under whatever key it
 * is audited with next, as they did then.
 *
 * @param trusted the last verified checkpoint by {@link #id} (or by room, if written before)
 * @param splits every split view detected, by the same key
 */
record RoomLogMemory(Map<String, RoomTrust> trusted, Map<String, SplitView> splits) {
  public RoomLogMemory {
    trusted = trusted == null ? Map.of() : Map.copyOf(trusted);
    splits = splits == null ? Map.of() : Map.copyOf(splits);
  }

  static RoomLogMemory empty() {
    return new RoomLogMemory(Map.of(), Map.of());
  }

  /** The history's key of {@code room}'s log under {@code logKey}. */
  static String id(String logKey, String room) {
    return logKey + " " + room;
  }

  /** The last verified checkpoint of {@code room} under {@code logKey}, if any. */
  RoomTrust trusted(String logKey, String room) {
    RoomTrust t = trusted.get(id(logKey, room));
    return t != null ? t : trusted.get(room);
  }

  /** The split view recorded for {@code room} under {@code logKey}, if any. */
  SplitView split(String logKey, String room) {
    SplitView s = splits.get(id(logKey, room));
    return s != null ? s : splits.get(room);
  }

  /** True if a checkpoint of {@code room} was verified under a key other than {@code logKey}. */
  boolean trustedUnderOtherKey(String logKey, String room) {
    String suffix = " " + room;
    for (Map.Entry<String, RoomTrust> e : trusted.entrySet()) {
      if (e.getKey().endsWith(suffix) && !e.getKey().equals(id(logKey, room))) {
        return true;
      }
    }
    return false;
  }

  /**
   * The split views to show against a server with {@code logKey}: those of its logs and those
   * recorded before the console kept keys; every one if the key is not known yet.
   */
  List<SplitView> splitsFor(String logKey) {
    List<SplitView> out = new ArrayList<>();
    for (Map.Entry<String, SplitView> e : splits.entrySet()) {
      String k = e.getKey();
      if (logKey == null || !k.contains(" ") || k.equals(id(logKey, e.getValue().room()))) {
        out.add(e.getValue());
      }
    }
    return out;
  }
}
