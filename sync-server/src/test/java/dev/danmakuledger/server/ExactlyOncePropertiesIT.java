package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.danmakuledger.lua.DedupeScripts;
import dev.danmakuledger.lua.RedisKeys;
import dev.danmakuledger.lua.RetryPolicy;
import dev.danmakuledger.lua.testing.RedisFixture;
import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import dev.danmakuledger.protocol.wire.WireRecord;
import dev.danmakuledger.server.ingest.BatchIngest;
import dev.danmakuledger.server.ingest.GapSealer;
import dev.danmakuledger.server.ingest.IngestFixtures;
import dev.danmakuledger.server.redis.MessageIds;
import dev.danmakuledger.server.storage.Database;
import dev.danmakuledger.server.storage.LedgerStore;
import dev.danmakuledger.server.storage.MessageRow;
import dev.danmakuledger.server.storage.MessageStatus;
import dev.danmakuledger.server.storage.StorageUnavailableException;
import dev.danmakuledger.testkit.TestDevice;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The exactly-once model (docs/architecture.md §5): random interleavings of batches on two server
 * instances sharing one database and one Redis (some sent at the same moment on both, racing for
 * numbers and device rows), every device's batch sent at once to one instance so that they share a
 * tick (docs/architecture.md §5, "Ticks") while SQL fails one device's inserts inside it (only that
 * device's batch may fail), a device's batches in flight at once (chained, often in one tick) while
 * SQL fails one of them (only it and those after it may fail), SQL commits failing after Redis
 * admitted, retries, Redis wipes, room counters deleted, rolled back or set behind SQL, repeated
 * and conflicting keys. After the devices have synced everything and the gap sealer ran with the
 * clock past its age, the reference model must hold: every number 1..high of every room is a
 * message or a tombstone, every captured key is stored exactly once, every CONFIRMED outcome names
 * its stored message, and every DUPLICATE or CONFLICT outcome names a message SQL returns
 * (DUPLICATE exactly when the contents match). The seed is fixed; jqwik prints it and the failing
 * sample, and the message lists the steps taken (a racing step's interleaving is the scheduler's,
 * so it is not replayed exactly).
 */
class ExactlyOncePropertiesIT {
  private static final Duration SEAL_AFTER = Duration.ofSeconds(30);
  private static final AtomicInteger RUNS = new AtomicInteger();

  /** Longest the model waits for a batch's answer; the write path answers in milliseconds. */
  private static final Duration ANSWER_WAIT = Duration.ofMinutes(2);

  /** Where a single batch is sent from, so that its answer is awaited with {@link #ANSWER_WAIT}. */
  private static final ExecutorService CALLS =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "model-send");
            t.setDaemon(true);
            return t;
          });

  static RedisFixture redis;
  static DedupeScripts scripts;

  @BeforeContainer
  static void startRedis() {
    redis = RedisFixture.embedded();
    scripts = DedupeScripts.standalone(redis.uri(), RetryPolicy.defaults());
  }

  @AfterContainer
  static void stopRedis() {
    scripts.close();
    redis.close();
  }

  /** One server instance: its own sequencer, message ids and ingest over the shared stores. */
  record Instance(BatchIngest ingest, MessageIds ids) {}

  /** A simulated device and what it captured. */
  static final class Device {
    final TestDevice log;
    final List<DanmakuRecord> captured = new ArrayList<>();
    long verified;

    Device(TestDevice log) {
      this.log = log;
    }
  }

  @Property(seed = "20261201", tries = 25)
  void everyKeyOnceAndEveryNumberAccountedForUnderAnyInterleaving(
      @ForAll @IntRange(min = 5, max = 40) int steps, @ForAll Random random) throws Exception {
    redis.flushAll();
    int run = RUNS.incrementAndGet();
    String url = "jdbc:h2:mem:model" + run + ";MODE=MySQL;DATABASE_TO_LOWER=TRUE;DB_CLOSE_DELAY=-1";
    MutableClock clock = MutableClock.running();
    List<String> trace = new ArrayList<>();
    try (Database db = Database.open(url, null, null)) {
      FailingCommits.install(url);
      LedgerStore store = new LedgerStore(db, clock);
      List<Instance> instances = new ArrayList<>();
      for (int i = 0; i < 2; i++) {
        MessageIds ids =
            MessageIds.lease(scripts, "model-" + run + "-" + i, Duration.ofMinutes(1), clock);
        instances.add(new Instance(IngestFixtures.ingest(store, db, scripts, ids, clock), ids));
      }
      try {
        List<Device> devices = enroll(store, clock, run);
        List<String> rooms = List.of("r" + run + "a", "r" + run + "b");
        Map<String, List<RecordOutcome>> answers = new LinkedHashMap<>();
        for (int step = 0; step < steps; step++) {
          step(random, devices, rooms, instances, answers, trace);
        }
        for (Device d : devices) {
          syncAll(d, instances.get(0), answers, trace);
        }
        clock.advance(SEAL_AFTER.plusSeconds(1));
        new GapSealer(store, SEAL_AFTER, clock).runOnce();
        check(store, devices, rooms, answers, String.join("\n", trace));
      } finally {
        for (Instance i : instances) {
          i.ingest().close();
          i.ids().close();
        }
      }
    } finally {
      FailingCommits.failing = false;
      FailingCommits.failingDevice = null;
      FailingCommits.failingFrom = null;
    }
  }

  private static List<Device> enroll(LedgerStore store, MutableClock clock, int run) {
    List<Device> devices = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      devices.add(new Device(IngestFixtures.enrolled(store, clock, "dev" + run + "x" + i)));
    }
    return devices;
  }

  private void step(
      Random random,
      List<Device> devices,
      List<String> rooms,
      List<Instance> instances,
      Map<String, List<RecordOutcome>> answers,
      List<String> trace)
      throws InterruptedException, ExecutionException {
    Device d = devices.get(random.nextInt(devices.size()));
    Instance at = instances.get(random.nextInt(instances.size()));
    String room = rooms.get(random.nextInt(rooms.size()));
    int what = random.nextInt(100);
    if (what < 12) {
      Device other = devices.get(random.nextInt(devices.size()));
      for (Device x : other == d ? List.of(d) : List.of(d, other)) {
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
          capture(x, room, random);
        }
      }
      trace.add("race " + d.log.id + " on both instances with " + other.log.id);
      race(d, other, instances, answers, trace);
    } else if (what < 22) {
      for (Device x : devices) {
        for (int i = 1 + random.nextInt(3); i > 0; i--) {
          capture(x, rooms.get(random.nextInt(rooms.size())), random);
        }
      }
      Device bad = random.nextBoolean() ? d : null;
      trace.add(
          "tick of every device on one instance"
              + (bad == null ? "" : ", SQL fails " + bad.log.id));
      tick(devices, bad, at, answers, trace);
    } else if (what < 30) {
      for (int i = 2 + random.nextInt(5); i > 0; i--) {
        capture(d, rooms.get(random.nextInt(rooms.size())), random);
      }
      int batches = 2 + random.nextInt(2);
      int failing = random.nextInt(batches + 1) - 1;
      trace.add(
          "window of "
              + batches
              + " batches of "
              + d.log.id
              + (failing < 0 ? "" : ", SQL fails batch " + (failing + 1)));
      inFlight(d, batches, failing, at, answers, trace);
    } else if (what < 40) {
      int n = 1 + random.nextInt(4);
      for (int i = 0; i < n; i++) {
        capture(d, room, random);
      }
      boolean failing = random.nextInt(3) == 0;
      trace.add("send " + d.log.id + " +" + n + (failing ? " (SQL fails)" : ""));
      send(d, at, failing, answers, trace);
    } else if (what < 55) {
      trace.add("retry " + d.log.id);
      send(d, at, false, answers, trace);
    } else if (what < 65) {
      trace.add("flush redis");
      redis.flushAll();
    } else if (what < 75) {
      trace.add("delete counter " + room);
      try (RedisFixture.Raw raw = redis.connect()) {
        raw.sync().hdel(RedisKeys.counters(room), RedisKeys.field(room));
      }
    } else if (what < 90) {
      String value = Integer.toString(random.nextInt(4));
      trace.add("set counter " + room + " to " + value);
      try (RedisFixture.Raw raw = redis.connect()) {
        raw.sync().hset(RedisKeys.counters(room), RedisKeys.field(room), value);
      }
    } else {
      trace.add("delete keys of " + room);
      try (RedisFixture.Raw raw = redis.connect()) {
        raw.forgetDedupeEntries(room);
      }
    }
  }

  /** A new message, a repeat of an earlier capture, or a reuse of its key with other text. */
  private static void capture(Device d, String room, Random random) {
    int kind = random.nextInt(10);
    DanmakuRecord r;
    if (kind < 2 && !d.captured.isEmpty()) {
      r = d.log.again(d.captured.get(random.nextInt(d.captured.size())));
    } else if (kind < 3 && !d.captured.isEmpty()) {
      r = d.log.conflicting(d.captured.get(random.nextInt(d.captured.size())), "other " + kind);
    } else {
      r = d.log.record(room, "u" + random.nextInt(3), "text " + random.nextInt(1_000_000));
    }
    d.captured.add(r);
    d.log.batch(r);
  }

  /**
   * Sends two devices' pending records at the same moment through the two instances (the same
   * device twice: a resend to another instance after a lost reply). Both must end stored once.
   */
  private static void race(
      Device a,
      Device b,
      List<Instance> instances,
      Map<String, List<RecordOutcome>> answers,
      List<String> trace)
      throws InterruptedException, ExecutionException {
    ExecutorService pool = Executors.newFixedThreadPool(2);
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<BatchResponse>> running = new ArrayList<>();
      Device[] who = {a, b};
      for (int i = 0; i < 2; i++) {
        Device d = who[i];
        BatchRequest req = d.log.resend(d.verified, d.log.size());
        Instance at = instances.get(i);
        running.add(
            pool.submit(
                () -> {
                  start.await();
                  return at.ingest()
                      .ingest(d.log.id, req.oldSize(), bytes(req), req.checkpoint(), null)
                      .response();
                }));
      }
      start.countDown();
      for (int i = 0; i < 2; i++) {
        try {
          record(who[i], answer(running.get(i)), answers, trace);
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof LedgerException le
              && le.code() == ErrorCode.VERSION_CONFLICT)) {
            throw e;
          }
          trace.add("  -> 409 " + le.getMessage());
        }
      }
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Sends every device's pending records at the same moment to one instance, so that they commit in
   * one tick, while SQL fails the inserts of {@code bad} (if not null): only {@code bad}'s batch
   * may fail, every other batch of the tick must commit.
   */
  private static void tick(
      List<Device> devices,
      Device bad,
      Instance at,
      Map<String, List<RecordOutcome>> answers,
      List<String> trace)
      throws InterruptedException, ExecutionException {
    ExecutorService pool = Executors.newFixedThreadPool(devices.size());
    FailingCommits.failingDevice = bad == null ? null : bad.log.id;
    try {
      CountDownLatch start = new CountDownLatch(1);
      List<Future<BatchResponse>> running = new ArrayList<>();
      for (Device d : devices) {
        BatchRequest req = d.log.resend(d.verified, d.log.size());
        running.add(
            pool.submit(
                () -> {
                  start.await();
                  return at.ingest()
                      .ingest(d.log.id, req.oldSize(), bytes(req), req.checkpoint(), null)
                      .response();
                }));
      }
      start.countDown();
      for (int i = 0; i < devices.size(); i++) {
        Device d = devices.get(i);
        try {
          record(d, answer(running.get(i)), answers, trace);
        } catch (ExecutionException e) {
          if (d != bad || !(e.getCause() instanceof StorageUnavailableException)) {
            throw e;
          }
          trace.add("  -> SQL failed for " + d.log.id);
        }
      }
    } finally {
      FailingCommits.failingDevice = null;
      pool.shutdownNow();
    }
  }

  /**
   * Sends the device's records the server has not verified as {@code count} batches in flight at
   * once, in log order (each chained behind the one before it, docs/architecture.md §5, "Batches in
   * flight"), while SQL fails the inserts of batch {@code failing} (none when negative): the
   * batches before it must commit, it may fail, and those after it may be refused as starting
   * beyond the verified size.
   */
  private static void inFlight(
      Device d,
      int count,
      int failing,
      Instance at,
      Map<String, List<RecordOutcome>> answers,
      List<String> trace)
      throws InterruptedException, ExecutionException {
    long from = d.verified;
    long size = d.log.size();
    if (size - from < count) {
      return;
    }
    List<BatchRequest> batches = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batches.add(
          d.log.resend(from + (size - from) * i / count, from + (size - from) * (i + 1) / count));
    }
    if (failing >= 0) {
      FailingCommits.failingDevice = d.log.id;
      FailingCommits.failingFrom = batches.get(failing).oldSize();
    }
    ExecutorService pool = Executors.newFixedThreadPool(count);
    try {
      List<Future<BatchResponse>> running = new ArrayList<>();
      for (BatchRequest req : batches) {
        running.add(
            pool.submit(
                () ->
                    at.ingest()
                        .ingest(d.log.id, req.oldSize(), bytes(req), req.checkpoint(), null)
                        .response()));
        Thread.sleep(1); // sent in log order, as an agent sends them
      }
      for (int i = 0; i < count; i++) {
        try {
          record(d, answer(running.get(i)), answers, trace);
        } catch (ExecutionException e) {
          boolean refused =
              i > failing
                  && failing >= 0
                  && e.getCause() instanceof LedgerException le
                  && le.code() == ErrorCode.SIZE_MISMATCH;
          boolean failed = i == failing && e.getCause() instanceof StorageUnavailableException;
          if (!refused && !failed) {
            throw e;
          }
          trace.add("  -> batch " + (i + 1) + " " + e.getCause().getMessage());
        }
      }
    } finally {
      FailingCommits.failingDevice = null;
      FailingCommits.failingFrom = null;
      pool.shutdownNow();
    }
  }

  private static List<byte[]> bytes(BatchRequest b) {
    List<byte[]> bytes = new ArrayList<>();
    for (WireRecord w : b.records()) {
      bytes.add(Base64.getDecoder().decode(w.canonical()));
    }
    return bytes;
  }

  private static void record(
      Device d, BatchResponse r, Map<String, List<RecordOutcome>> answers, List<String> trace) {
    d.verified = Math.max(d.verified, r.verifiedSize());
    for (RecordOutcome o : r.outcomes()) {
      answers.computeIfAbsent(d.log.id, k -> new ArrayList<>()).add(o);
    }
    trace.add("  -> " + r.outcomes().stream().map(o -> o.outcome() + "@" + o.seq()).toList());
  }

  /** Sends every record the server has not verified yet, as an agent does. */
  private static void send(
      Device d,
      Instance at,
      boolean failing,
      Map<String, List<RecordOutcome>> answers,
      List<String> trace)
      throws InterruptedException, ExecutionException {
    if (d.verified == d.log.size()) {
      return;
    }
    BatchRequest b = d.log.resend(d.verified, d.log.size());
    FailingCommits.failing = failing;
    try {
      record(
          d,
          answer(
              CALLS.submit(
                  () ->
                      at.ingest()
                          .ingest(d.log.id, b.oldSize(), bytes(b), b.checkpoint(), null)
                          .response())),
          answers,
          trace);
    } catch (ExecutionException e) {
      if (!failing || !(e.getCause() instanceof StorageUnavailableException)) {
        throw e;
      }
      trace.add("  -> SQL failed");
    } finally {
      FailingCommits.failing = false;
    }
  }

  /**
   * The answer of a batch sent on another thread. A batch unanswered after {@link #ANSWER_WAIT}
   * fails the property with every thread's stack, so that a hang shows where it waits.
   */
  private static <T> T answer(Future<T> running) throws InterruptedException, ExecutionException {
    try {
      return running.get(ANSWER_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError(
          "no answer within " + ANSWER_WAIT + "; the threads:\n" + threadStacks(), e);
    }
  }

  private static String threadStacks() {
    StringBuilder out = new StringBuilder();
    for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      out.append('"').append(t.getThreadName()).append("\" ").append(t.getThreadState());
      if (t.getLockName() != null) {
        out.append(" on ").append(t.getLockName());
      }
      if (t.getLockOwnerName() != null) {
        out.append(" owned by \"").append(t.getLockOwnerName()).append('"');
      }
      out.append('\n');
      for (StackTraceElement e : t.getStackTrace()) {
        out.append("\tat ").append(e).append('\n');
      }
    }
    return out.toString();
  }

  private static void syncAll(
      Device d, Instance at, Map<String, List<RecordOutcome>> answers, List<String> trace)
      throws InterruptedException, ExecutionException {
    trace.add("final sync " + d.log.id);
    send(d, at, false, answers, trace);
    assertEquals(d.log.size(), d.verified, "device " + d.log.id + " synced everything");
  }

  private static void check(
      LedgerStore store,
      List<Device> devices,
      List<String> rooms,
      Map<String, List<RecordOutcome>> answers,
      String trace) {
    for (String room : rooms) {
      List<MessageRow> slots = store.roomPage(room, 0, 10_000);
      for (int i = 0; i < slots.size(); i++) {
        if (slots.get(i).seq() != i + 1) {
          fail(
              "room "
                  + room
                  + ": number "
                  + (i + 1)
                  + " is neither message nor tombstone\n"
                  + trace);
        }
      }
    }
    for (Device d : devices) {
      for (DanmakuRecord r : d.captured) {
        assertNotNull(
            store.messageByKey(r.key().toString()).orElse(null),
            "key " + r.key() + " captured but not stored\n" + trace);
      }
      Map<Long, DanmakuRecord> byIndex = new HashMap<>();
      for (DanmakuRecord r : d.captured) {
        byIndex.put(r.index(), r);
      }
      for (RecordOutcome o : answers.getOrDefault(d.log.id, List.of())) {
        DanmakuRecord r = byIndex.get(o.index());
        MessageRow m = store.messageByKey(o.idempotencyKey()).orElseThrow();
        String where = o + " of " + d.log.id + "\n" + trace;
        assertEquals(m.seq(), o.seq(), "seq of " + where);
        assertEquals(Long.toString(m.messageId()), o.messageId(), "message id of " + where);
        switch (o.outcome()) {
          case CONFIRMED, PENDING -> {
            assertEquals(r.contentHash(), m.contentHash(), where);
            assertEquals(d.log.id, m.deviceId(), where);
            assertEquals(o.index(), m.deviceIndex(), where);
          }
          case DUPLICATE -> {
            assertEquals(r.contentHash(), m.contentHash(), where);
            assertEquals(m.room(), o.room(), where);
          }
          case CONFLICT -> {
            assertTrue(!r.contentHash().equals(m.contentHash()), where);
            assertEquals(m.room(), o.room(), where);
          }
          case REJECTED -> fail("no record of the model is invalid: " + where);
        }
        assertTrue(m.status() != MessageStatus.TOMBSTONE, where);
      }
    }
  }
}
