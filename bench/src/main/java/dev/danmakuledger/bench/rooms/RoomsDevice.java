package dev.danmakuledger.bench.rooms;

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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * One device of the rooms benchmark: captures at a fixed rate, round robin over its rooms, each
 * capture's text carrying its capture time; sends what is pending once the oldest capture waited
 * the linger (the edge agent's rule, docs/sync.md), everything captured by then in one batch.
 * Counts the acknowledged messages per room.
 */
final class RoomsDevice {
  private static final int BATCH = 500;

  private final LedgerClient client;
  private final SimulatedDevice device;
  private final List<String> rooms;
  private final SecureRandom random = new SecureRandom();
  private final Map<String, Long> acked = new ConcurrentHashMap<>();
  private final Measured captureToAck;
  private long millis = System.currentTimeMillis();

  private RoomsDevice(
      LedgerClient client, SimulatedDevice device, List<String> rooms, Measured captureToAck) {
    this.client = client;
    this.device = device;
    this.rooms = List.copyOf(rooms);
    this.captureToAck = captureToAck;
  }

  /** Enrols device {@code id}; each acknowledged capture's capture→ack nanos go to {@code acks}. */
  static RoomsDevice enroll(URI server, String token, String id, List<String> rooms, Measured acks)
      throws IOException, InterruptedException {
    LedgerClient client = new LedgerClient(server, Duration.ofSeconds(30));
    SimulatedDevice device = SimulatedDevice.create(id, new SecureRandom());
    if (!client.enroll(device.deviceId(), device.publicKeyBase64(), token).ok()) {
      throw new IOException("enroll " + id + " failed");
    }
    return new RoomsDevice(client, device, rooms, acks);
  }

  /** Messages acknowledged per room. */
  Map<String, Long> acked() {
    return acked;
  }

  /**
   * Captures {@code rate} a second for {@code duration}; returns once all are acknowledged. One
   * batch is in flight at a time, as on the edge agent: once the oldest pending capture waited the
   * linger, everything captured by then goes (up to {@value #BATCH}), so a slow acknowledgement
   * makes the next batch larger, never the device slower than its pace.
   */
  void run(double rate, Duration duration, Duration linger)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    long end = start + duration.toNanos();
    long period = (long) (1e9 / rate);
    long n = 0;
    while (true) {
      long first = start + n * period;
      if (first >= end) {
        return;
      }
      long wait = first + linger.toNanos() - System.nanoTime();
      if (wait > 0) {
        LockSupport.parkNanos(wait);
      }
      long now = System.nanoTime();
      List<Long> due = new ArrayList<>();
      while (due.size() < BATCH) {
        long at = start + (n + due.size()) * period;
        if (at >= end || at > now) {
          break;
        }
        due.add(at);
      }
      if (due.isEmpty()) {
        continue; // woken before the first capture
      }
      send(n, due);
      n += due.size();
    }
  }

  private void send(long first, List<Long> captured) throws IOException, InterruptedException {
    List<DanmakuRecord> drafts = new ArrayList<>();
    List<String> to = new ArrayList<>();
    for (int i = 0; i < captured.size(); i++) {
      String room = rooms.get((int) ((first + i) % rooms.size()));
      to.add(room);
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
              "rb " + captured.get(i),
              1_000L,
              1,
              0xFFFFFF,
              25,
              millis << 16,
              0));
    }
    LedgerClient.Reply<?> r = client.postBatch(device.deviceId(), device.append(drafts));
    if (!r.ok()) {
      throw new IOException("batch of " + device.deviceId() + " failed: " + r.code());
    }
    long now = System.nanoTime();
    for (String room : to) {
      acked.merge(room, 1L, Long::sum);
    }
    for (long at : captured) {
      captureToAck.add(at, now);
    }
  }
}
