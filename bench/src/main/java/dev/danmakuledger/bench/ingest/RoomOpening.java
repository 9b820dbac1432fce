package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.server.SyncServer;
import java.io.IOException;
import java.io.PrintStream;
import java.security.SecureRandom;
import java.util.List;
import java.util.Locale;

/**
 * Opens the rooms of an e2e run before its clock starts (docs/benchmarks.md, "e2e: ten thousand
 * rooms").
 */
final class RoomOpening {
  private RoomOpening() {}

  /**
   * Gives every room of the run one message before the clock, from a device of its own in batches
   * of {@code batchSize}: what the server keeps per room (the Redis counter, the cursor row, the
   * room log's head and first checkpoint, written by the integrator's scheduled runs before the
   * clock waits for quiet) then exists, as on a server whose rooms are live, and the timed part
   * measures ingest into them rather than their opening. The room logs are left to the scheduled
   * runs: a forced integration takes branches the warm-up never took, and the compiled code that
   * assumed they are never taken would be thrown away and compiled again in the timed part.
   */
  static void open(
      LedgerClient client,
      SyncServer server,
      List<String> rooms,
      String deviceId,
      int batchSize,
      SecureRandom random,
      PrintStream log)
      throws IOException, InterruptedException {
    SimulatedDevice opener = SimulatedDevice.create(deviceId, random);
    LedgerClient.Reply<?> enrolled =
        client.enroll(opener.deviceId(), opener.publicKeyBase64(), server.enrollToken());
    if (!enrolled.ok()) {
      throw new IOException("enroll " + opener.deviceId() + ": " + enrolled.code());
    }
    MessageStream stream = new MessageStream(opener.deviceId(), rooms, 0, 1, 1_763_500_000_000L);
    List<DanmakuRecord> firsts = stream.oneInEachRoom();
    long t0 = System.nanoTime();
    for (int from = 0; from < firsts.size(); from += batchSize) {
      List<DanmakuRecord> batch = firsts.subList(from, Math.min(firsts.size(), from + batchSize));
      LedgerClient.Reply<BatchResponse> r =
          client.postBatch(opener.deviceId(), client.encode(opener.append(batch)));
      if (!r.ok()) {
        throw new IOException("opening the rooms: batch refused: " + r.code());
      }
    }
    log.printf(
        Locale.ROOT,
        "e2e: rooms opened before the clock: one message in each of %,d rooms in %.1f s%n",
        rooms.size(),
        (System.nanoTime() - t0) / 1e9);
  }
}
