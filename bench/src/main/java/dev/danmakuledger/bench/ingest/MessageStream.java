package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The messages one simulated device sends, deterministic for a seed: batches in which a given share
 * are retries of messages the device sent before (same idempotency key, same content), the way
 * double clicks and client retries reach the server when an edge check is bypassed
 * (docs/architecture.md §1). New messages spread over the rooms uniformly.
 */
public final class MessageStream {
  private static final int HISTORY = 8192;
  private static final String[] WORDS = {
    "草", "233", "哈哈哈", "前方高能", "awsl", "名场面", "好耶", "泪目", "kksk", "打卡"
  };

  private final String deviceId;
  private final List<String> rooms;
  private final double duplicateShare;
  private final SplittableRandom random;
  private final DanmakuRecord[] history = new DanmakuRecord[HISTORY];
  private long sent;
  private long millis;

  /** Room names {@code prefix + 0} .. {@code prefix + (count - 1)}. */
  public static List<String> rooms(String prefix, int count) {
    List<String> rooms = new ArrayList<>(count);
    for (int r = 0; r < count; r++) {
      rooms.add(prefix + r);
    }
    return rooms;
  }

  /**
   * @param deviceId the device; every key carries it
   * @param rooms rooms to spread messages over, at least one
   * @param duplicateShare share of each batch that repeats earlier messages, 0..0.9
   * @param seed random seed
   * @param startMillis the capture time of the first message (13-digit unix ms)
   */
  public MessageStream(
      String deviceId, List<String> rooms, double duplicateShare, long seed, long startMillis) {
    this.deviceId = Objects.requireNonNull(deviceId, "deviceId");
    this.rooms = List.copyOf(rooms);
    if (this.rooms.isEmpty()) {
      throw new IllegalArgumentException("rooms: got none, want at least one");
    }
    if (!(duplicateShare >= 0 && duplicateShare <= 0.9)) {
      throw new IllegalArgumentException(
          "duplicate share: got " + duplicateShare + ", want 0..0.9");
    }
    this.duplicateShare = duplicateShare;
    this.random = new SplittableRandom(seed);
    this.millis = startMillis;
  }

  /**
   * The next batch of {@code size} records (index 0; the log assigns indices): {@code round(size *
   * duplicateShare)} repeats of earlier messages, once there are earlier messages.
   */
  public List<DanmakuRecord> nextBatch(int size) {
    if (size < 1) {
      throw new IllegalArgumentException("batch size: got " + size + ", want >= 1");
    }
    int repeats = sent == 0 ? 0 : (int) Math.round(size * duplicateShare);
    long known = Math.min(sent, HISTORY);
    List<DanmakuRecord> retries = new ArrayList<>(repeats);
    for (int i = 0; i < repeats; i++) {
      retries.add(history[(int) random.nextLong(known)]);
    }
    List<DanmakuRecord> batch = new ArrayList<>(size);
    for (int i = 0; i < size - repeats; i++) {
      DanmakuRecord r = fresh();
      history[(int) (sent % HISTORY)] = r;
      sent++;
      batch.add(r);
    }
    for (DanmakuRecord r : retries) {
      batch.add(random.nextInt(batch.size() + 1), r);
    }
    return batch;
  }

  /** One new message in each room, in the order of the rooms given. */
  public List<DanmakuRecord> oneInEachRoom() {
    List<DanmakuRecord> out = new ArrayList<>(rooms.size());
    for (String room : rooms) {
      DanmakuRecord r = fresh(room);
      history[(int) (sent % HISTORY)] = r;
      sent++;
      out.add(r);
    }
    return out;
  }

  /** Distinct messages generated so far (repeats not counted). */
  public long distinct() {
    return sent;
  }

  private DanmakuRecord fresh() {
    return fresh(rooms.get(random.nextInt(rooms.size())));
  }

  private DanmakuRecord fresh(String room) {
    millis++;
    String user = "u" + random.nextInt(50_000);
    IdempotencyKey key =
        new IdempotencyKey(
            deviceId, user, millis, String.format(Locale.ROOT, "%016x", random.nextLong()));
    String text = WORDS[random.nextInt(WORDS.length)] + " #" + sent;
    return new DanmakuRecord(
        key,
        deviceId,
        room,
        user,
        text,
        (long) random.nextInt(3_600_000),
        1,
        0xFFFFFF,
        25,
        (millis << 16),
        0);
  }
}
