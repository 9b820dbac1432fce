package dev.danmakuledger.edge.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Exactly-once capture under any interleaving of retries, group sizes and a restart. */
class CaptureProperties {

  @Property(seed = "20261130", tries = 25)
  void everyKeyIsCapturedOnceWhateverTheRetries(
      @ForAll @Size(min = 1, max = 60) List<@IntRange(min = 0, max = 15) Integer> sends,
      @ForAll @IntRange(min = 1, max = 10) int groupSize,
      @ForAll @IntRange(min = 0, max = 60) int restartAfter)
      throws Exception {
    Path dir = Files.createTempDirectory("capture-prop");
    TestDevice device =
        TestDevice.create(dir, new MutableClock(Instant.parse("2026-01-01T00:00:00Z")));
    try {
      Map<Integer, Long> indexOf = new HashMap<>();
      for (int from = 0; from < sends.size(); from += groupSize) {
        if (from >= restartAfter && from - groupSize < restartAfter) {
          device.restart();
        }
        List<Integer> group = sends.subList(from, Math.min(sends.size(), from + groupSize));
        List<CompletableFuture<CaptureAck>> futures = new ArrayList<>();
        for (int k : group) {
          futures.add(device.capture.submit(device.request("u" + k, k, "text of " + k)));
        }
        for (int i = 0; i < group.size(); i++) {
          CaptureAck ack = CaptureService.await(futures.get(i));
          Long before = indexOf.putIfAbsent(group.get(i), ack.index());
          if (before != null) {
            assertEquals(before, ack.index(), "key " + group.get(i) + " acked at two indices");
            assertTrue(ack.repeat());
          }
        }
      }
      long distinct = new HashSet<>(sends).size();
      assertEquals(distinct, device.capture.logStatus().size());
      assertEquals(distinct, device.store.recordCount());
      assertEquals(distinct, new HashSet<>(indexOf.values()).size());
      VerifyReport report = device.verify();
      assertTrue(report.ok(), report.problem());
    } finally {
      device.close();
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(p);
        }
      }
    }
  }
}
