package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * What the server stores for the run's rooms, read page by page through the public room API: the
 * messages by device, the keys stored more than once, the numbers used twice and the holes (numbers
 * in 1..max that are neither a message nor a tombstone, docs/architecture.md §5).
 */
final class RoomLedger {
  final Map<String, Set<String>> storedByDevice = new HashMap<>();

  /** Per room, its CONFIRMED messages: seq to idempotency key (what its stream must deliver). */
  final Map<String, Map<Long, String>> confirmedByRoom = new HashMap<>();

  final List<String> numberedTwice = new ArrayList<>();
  final List<String> holes = new ArrayList<>();
  long stored;
  long tombstones;
  long duplicateKeys;
  long holeCount;
  int roomCount;

  static RoomLedger read(LedgerClient server, List<String> rooms)
      throws IOException, InterruptedException {
    RoomLedger l = new RoomLedger();
    Map<String, Integer> keyCount = new HashMap<>();
    for (String room : rooms) {
      TreeSet<Long> seqs = new TreeSet<>();
      Map<Long, String> confirmed = new HashMap<>();
      l.confirmedByRoom.put(room, confirmed);
      for (RoomMessage m : messages(server, room)) {
        if (!seqs.add(m.seq())) {
          l.numberedTwice.add(room + " seq " + m.seq() + " twice");
        }
        if (m.status() == RoomMessage.Status.TOMBSTONE) {
          l.tombstones++;
          continue;
        }
        l.stored++;
        if (m.status() == RoomMessage.Status.CONFIRMED) {
          confirmed.put(m.seq(), m.idempotencyKey());
        }
        keyCount.merge(m.idempotencyKey(), 1, Integer::sum);
        l.storedByDevice
            .computeIfAbsent(m.deviceId(), d -> new HashSet<>())
            .add(m.idempotencyKey());
      }
      if (!seqs.isEmpty()) {
        long missing = seqs.last() - seqs.size();
        if (missing > 0) {
          l.holeCount += missing;
          l.holes.add(room + ": " + missing + " holes below " + seqs.last() + firstHole(seqs));
        }
      }
      l.roomCount++;
    }
    l.duplicateKeys = keyCount.values().stream().filter(n -> n > 1).count();
    return l;
  }

  /** The stored (non-tombstone) keys of a device. */
  Set<String> keysOf(String deviceId) {
    return storedByDevice.getOrDefault(deviceId, Set.of());
  }

  private static String firstHole(TreeSet<Long> seqs) {
    long expect = 1;
    for (long s : seqs) {
      if (s != expect) {
        return ", the first is " + expect;
      }
      expect++;
    }
    return "";
  }

  private static List<RoomMessage> messages(LedgerClient server, String room)
      throws IOException, InterruptedException {
    List<RoomMessage> all = new ArrayList<>();
    long after = 0;
    while (true) {
      LedgerClient.Reply<RoomPage> page = server.room(room, after, 1000);
      if (!page.ok()) {
        throw new IOException("room " + room + ": " + page.code());
      }
      if (page.body().messages().isEmpty()) {
        return all;
      }
      all.addAll(page.body().messages());
      after = page.body().messages().get(page.body().messages().size() - 1).seq();
    }
  }
}
