package dev.danmakuledger.bench.kafka;

import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.SimulatedDevice;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.IOException;
import java.net.URI;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A device of the Kafka benchmark: posts batches of numbered messages ({@code "k #n"}) to its own
 * room and notes, per message, when the server's answer (after the SQL commit) came back.
 */
final class BenchDevice {
  private final LedgerClient client;
  private final SimulatedDevice device;
  private final String room;
  private final SecureRandom random = new SecureRandom();
  private long millis = System.currentTimeMillis();
  private long next;

  private BenchDevice(LedgerClient client, SimulatedDevice device, String room) {
    this.client = client;
    this.device = device;
    this.room = room;
  }

  static BenchDevice enroll(URI server, String token, String deviceId, String room)
      throws IOException, InterruptedException {
    LedgerClient client = new LedgerClient(server, Duration.ofSeconds(30));
    SimulatedDevice device = SimulatedDevice.create(deviceId, new SecureRandom());
    if (!client.enroll(device.deviceId(), device.publicKeyBase64(), token).ok()) {
      throw new IOException("enroll " + deviceId + " failed");
    }
    return new BenchDevice(client, device, room);
  }

  String room() {
    return room;
  }

  /**
   * Posts one batch of {@code n} messages; puts each message's acknowledgement time ({@link
   * System#nanoTime()}) into {@code acked} under {@code room/number}.
   */
  void post(int n, Map<String, Long> acked) throws IOException, InterruptedException {
    List<DanmakuRecord> drafts = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      long number = next++;
      IdempotencyKey key =
          new IdempotencyKey(
              device.deviceId(),
              "viewer",
              ++millis,
              String.format(Locale.ROOT, "%016x", random.nextLong()));
      drafts.add(
          new DanmakuRecord(
              key,
              device.deviceId(),
              room,
              "viewer",
              "k #" + number,
              1_000L,
              1,
              0xFFFFFF,
              25,
              millis << 16,
              0));
      names.add(room + "/" + number);
    }
    LedgerClient.Reply<?> r = client.postBatch(device.deviceId(), device.append(drafts));
    long now = System.nanoTime();
    if (!r.ok()) {
      throw new IOException("batch failed: " + r.code());
    }
    for (String name : names) {
      acked.put(name, now);
    }
  }
}
