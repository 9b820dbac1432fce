package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.server.storage.Database;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The raw-insert baseline on embedded H2: many devices opening their connections at once still get
 * the URL's MySQL mode (INSERT IGNORE), and every retried key is kept once.
 */
class RawInsertBaselineTest {
  private static final List<String> ROOMS = List.of("r0", "r1");

  @Test
  void devicesConnectingAtOnceOnAFreshH2FileAllInsertIgnore(@TempDir Path dir) throws Exception {
    for (int run = 0; run < 25; run++) {
      String url = Database.h2Url(dir.resolve("run-" + run));
      Measured m = RawInsertBaseline.run("h2-raw-insert", url, devices(run, 6), devices(run, 6));
      assertEquals(6 * 3 * 10, m.records());
      // 10% of every batch after each device's first is a retry: 2 batches x 1 retry x 6 devices
      assertTrue(m.note().contains((6 * 3 * 10 - 6 * 2) + " rows kept of 180"), m.note());
    }
  }

  @Test
  void moreDevicesThanConnectionsShareThemKeepingEachDevicesOrder() {
    List<List<List<DanmakuRecord>>> devices = devices(0, RawInsertBaseline.MAX_CONNECTIONS + 2);
    List<List<DanmakuRecord>> first =
        RawInsertBaseline.interleaved(devices, 0, RawInsertBaseline.MAX_CONNECTIONS);
    // connection 0 serves devices 0 and 64, one batch of each in turn
    assertEquals(
        List.of(
            devices.get(0).get(0),
            devices.get(64).get(0),
            devices.get(0).get(1),
            devices.get(64).get(1),
            devices.get(0).get(2),
            devices.get(64).get(2)),
        first);
    List<List<DanmakuRecord>> last =
        RawInsertBaseline.interleaved(devices, 2, RawInsertBaseline.MAX_CONNECTIONS);
    assertEquals(devices.get(2), last);
  }

  @Test
  void devicesBeyondTheConnectionCapAllInsert(@TempDir Path dir) throws Exception {
    int count = RawInsertBaseline.MAX_CONNECTIONS + 6;
    String url = Database.h2Url(dir.resolve("many"));
    Measured m = RawInsertBaseline.run("h2-raw-insert", url, devices(1, count), List.of());
    assertEquals(count * 3 * 10, m.records());
    assertTrue(m.note().contains((count * 3 * 10 - count * 2) + " rows kept of"), m.note());
  }

  private static List<List<List<DanmakuRecord>>> devices(int run, int count) {
    List<List<List<DanmakuRecord>>> out = new ArrayList<>();
    for (int d = 0; d < count; d++) {
      MessageStream s =
          new MessageStream("dev-" + run + "-" + d, ROOMS, 0.1, d, 1_764_000_000_000L);
      out.add(List.of(s.nextBatch(10), s.nextBatch(10), s.nextBatch(10)));
    }
    return out;
  }
}
