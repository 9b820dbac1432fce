package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.testkit.TestDevice;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping and restarting a server on embedded defaults (docs/architecture.md §6): close() drains
 * batches in flight (each sender gets its answer or a 503, never a half-stored batch), and a
 * restart on the same data directory keeps tokens, keys and verified state while the fresh embedded
 * Redis is re-seeded from SQL and forgotten keys are caught by the SQL guard.
 */
final class RestartIT {
  @TempDir Path dir;

  @Test
  void closeDrainsInFlightBatchesAndARestartContinuesWhereItStopped() throws Exception {
    List<TestDevice> devices = new ArrayList<>();
    List<DanmakuRecord> firstRecords = new ArrayList<>();
    String room = "restart-room";
    String adminToken;
    String enrollToken;
    String serverKey;
    List<Integer> statuses = new ArrayList<>();
    SyncServer server = SyncServer.start(ServerConfig.defaults(dir));
    adminToken = server.adminToken();
    enrollToken = server.enrollToken();
    serverKey = server.serverVerifierKey();
    Api api = new Api(server.baseUri(), adminToken);
    List<BatchRequest> batches = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      TestDevice d = TestDevice.create("restart-" + i);
      api.enroll(d, enrollToken);
      DanmakuRecord[] recs = new DanmakuRecord[200];
      for (int j = 0; j < recs.length; j++) {
        recs[j] = d.record(room, "u" + j, "before restart " + i + "/" + j);
      }
      firstRecords.add(recs[0]);
      batches.add(d.batch(recs));
      devices.add(d);
    }
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> sends = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        String path = "/v1/devices/" + devices.get(i).id + "/batches";
        BatchRequest b = batches.get(i);
        sends.add(
            pool.submit(
                () -> {
                  try {
                    return api.post(path, b).status();
                  } catch (UncheckedIOException e) {
                    return -1;
                  }
                }));
      }
      server.close();
      for (Future<Integer> f : sends) {
        statuses.add(f.get(120, TimeUnit.SECONDS));
      }
    } finally {
      pool.shutdownNow();
    }
    for (int s : statuses) {
      assertTrue(s == 200 || s == 503 || s == -1, "unexpected status " + s + " in " + statuses);
    }

    try (SyncServer again = SyncServer.start(ServerConfig.defaults(dir))) {
      assertEquals(adminToken, again.adminToken());
      assertEquals(enrollToken, again.enrollToken());
      assertEquals(serverKey, again.serverVerifierKey());
      Api api2 = new Api(again.baseUri(), adminToken);
      long stored = 0;
      boolean firstKeptAcrossRestart = false;
      for (int i = 0; i < 4; i++) {
        TestDevice d = devices.get(i);
        long size = api2.get("/v1/devices/" + d.id + "/log").as(LogState.class).verifiedSize();
        assertTrue(size == 0 || size == 200, d.id + " half-stored: " + size);
        firstKeptAcrossRestart |= i == 0 && size == 200;
        if (statuses.get(i) == 200) {
          assertEquals(200, size, d.id + " was acknowledged but not kept");
        }
        if (size == 0) {
          assertEquals(200, api2.batch(d, batches.get(i)).status());
        }
        stored += 200;
      }
      TestDevice d = devices.get(0);
      BatchResponse after =
          api2.batch(
                  d, d.batch(d.again(firstRecords.get(0)), d.record(room, "u1", "after restart")))
              .as(BatchResponse.class);
      RecordOutcome dup = after.outcomes().get(0);
      assertEquals(Outcome.DUPLICATE, dup.outcome());
      RecordOutcome fresh = after.outcomes().get(1);
      assertEquals(Outcome.CONFIRMED, fresh.outcome());
      long burned = firstKeptAcrossRestart ? 1 : 0;
      assertEquals(
          stored + 1 + burned,
          fresh.seq(),
          "a duplicate only the SQL guard knew burns one number (the fresh Redis forgot the key)");
      List<Long> seqs =
          api2
              .get("/v1/rooms/" + room + "/messages?limit=1000")
              .as(RoomPage.class)
              .messages()
              .stream()
              .map(RoomMessage::seq)
              .toList();
      assertEquals(Stream.iterate(1L, x -> x + 1).limit(stored + 1 + burned).toList(), seqs);
    }
  }
}
