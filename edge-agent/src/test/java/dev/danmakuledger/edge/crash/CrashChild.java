package dev.danmakuledger.edge.crash;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;

/**
 * The process {@link CrashSafetyIT} kills: captures in groups forever and prints {@code ACK <key>
 * <index> END} for each durable ack, flushed at once. Arguments: data dir, round number.
 */
public final class CrashChild {
  private CrashChild() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int round = Integer.parseInt(args[1]);
    PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
    DataDirLock lock = DataDirLock.acquire(dir);
    DeviceIdentity id = DeviceIdentity.load(dir, "dev-1");
    EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL);
    CaptureService capture =
        CaptureService.start(
            store,
            id,
            new BloomConfig(500, 0.01, Duration.ofDays(1)),
            Long.MAX_VALUE,
            Clock.systemUTC());
    out.println("READY " + ProcessHandle.current().pid());
    out.flush();
    Random random = new Random(round);
    int n = 0;
    // Referencing the lock in the loop keeps it reachable, so no cleaner can release it early.
    while (lock.dataDir().equals(dir)) {
      int group = 1 + random.nextInt(64);
      List<CompletableFuture<CaptureAck>> futures = new ArrayList<>();
      for (int i = 0; i < group; i++) {
        int k = (n > 0 && random.nextInt(10) == 0) ? random.nextInt(n) : n++;
        futures.add(capture.submit(request(id.deviceId(), round, k)));
      }
      for (CompletableFuture<CaptureAck> f : futures) {
        CaptureAck ack = CaptureService.await(f);
        out.println("ACK " + ack.idempotencyKey() + " " + ack.index() + " END");
      }
      out.flush();
    }
  }

  static CaptureRequest request(String deviceId, int round, int k) {
    String user = "round" + round;
    IdempotencyKey key =
        new IdempotencyKey(deviceId, user, 1_700_000_000_000L + k, String.format("%016x", k));
    return new CaptureRequest(
        key,
        "crash-room",
        user,
        "message " + k + " of round " + round + " 弹幕",
        null,
        1,
        0xFFFFFF,
        25);
  }
}
