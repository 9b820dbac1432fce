package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.protocol.wire.LogState;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The verdict on cloned devices (docs/architecture.md §4, forks): once both copies synced as far as
 * they can, the server must have seen the fork (the device is FORKED or QUARANTINED) and what it
 * stores of the device must be exactly the verified prefix of one of the two logs — nothing of the
 * other one.
 */
final class CloneVerdict {
  private CloneVerdict() {}

  /** Syncs both copies of every clone pair as far as the server lets them. */
  static void syncAll(List<ChaosProcesses.ClonePair> pairs, FinalSync sync) throws Exception {
    for (ChaosProcesses.ClonePair p : pairs) {
      for (Path dir : List.of(p.original(), p.copy())) {
        try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
          sync.sync(dir, store); // refused once the fork is seen: that is the point
        }
      }
    }
  }

  /** Checks every clone pair against what the server stores. */
  static ChaosHarness.Check judge(
      List<ChaosProcesses.ClonePair> pairs, LedgerClient server, RoomLedger rooms)
      throws Exception {
    List<String> bad = new ArrayList<>();
    for (ChaosProcesses.ClonePair p : pairs) {
      LedgerClient.Reply<LogState> log = server.log(p.deviceId());
      if (!log.ok()) {
        bad.add(p.deviceId() + ": /log " + log.code());
        continue;
      }
      LogState s = log.body();
      if (s.status() != LogState.Status.QUARANTINED) {
        bad.add(p.deviceId() + ": status " + s.status() + ", want QUARANTINED");
        continue;
      }
      Set<String> stored = rooms.keysOf(p.deviceId());
      boolean prefixOfOne = false;
      for (Path dir : List.of(p.original(), p.copy())) {
        try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL)) {
          List<String> keys = store.keysFrom(0);
          if (keys.size() >= s.verifiedSize()
              && stored.equals(new HashSet<>(keys.subList(0, (int) s.verifiedSize())))) {
            prefixOfOne = true;
          }
        }
      }
      if (!prefixOfOne) {
        bad.add(
            p.deviceId()
                + ": "
                + stored.size()
                + " stored messages are not the "
                + s.verifiedSize()
                + " verified records of either copy");
      }
    }
    return new ChaosHarness.Check(
        "every cloned device is seen as a fork, nothing of the fork stored",
        bad.isEmpty(),
        bad.isEmpty()
            ? pairs.size() + " cloned devices FORKED/QUARANTINED, stored == one copy's prefix"
            : bad.get(0) + (bad.size() > 1 ? " (+" + (bad.size() - 1) + " more)" : ""));
  }
}
