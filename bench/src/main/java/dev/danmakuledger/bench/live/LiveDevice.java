package dev.danmakuledger.bench.live;

import dev.danmakuledger.bench.ingest.CpuUse;
import dev.danmakuledger.bench.ingest.Latencies;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.SimulatedDevice;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The online device of the live benchmark: one thread captures at the offered rate (the local ack
 * of message n is the moment it was due), another sends what is pending the way the edge agent's
 * sync daemon does (docs/sync.md): once the oldest pending capture has waited the linger, or at
 * once when a full batch or a backlog is pending. If the server's answers come slower than the
 * captures, the pending queue grows and the run says so: the achieved rate falls below the offered.
 */
final class LiveDevice {
  private static final int BATCH = 500;

  /** One pending capture. */
  private record Pending(long n, long dueNanos) {}

  /**
   * What one run did.
   *
   * @param sent captures made (and, at the end, all sent)
   * @param offered captures per second over the capture window
   * @param achieved messages per second the device got acknowledged: all its captures over the time
   *     from the first capture until the last acknowledgement, less the one linger the last capture
   *     may rightly wait. A device that keeps up finishes one round trip after the window (achieved
   *     ≈ offered); one that falls behind drains its backlog long after (achieved well below
   *     offered)
   * @param maxBacklog the most captures pending at once
   * @param roundTrips the time of each batch's POST until its answer (with every attempt it took)
   * @param resends batches sent again because their connection was cut before the answer
   * @param cpuAtEnd the JVM's CPU use once every capture was acknowledged, read while the devices'
   *     threads were still alive (so that their time counts as theirs), or null for one device's
   *     run
   */
  record Run(
      long sent,
      double offered,
      double achieved,
      long maxBacklog,
      Latencies roundTrips,
      long resends,
      CpuUse cpuAtEnd) {}

  /** Attempts of one batch whose connections are cut before the answer, before the run fails. */
  private static final int MAX_ATTEMPTS = 20;

  private final LedgerClient client;
  private final SimulatedDevice device;
  private final SecureRandom random = new SecureRandom();

  private LiveDevice(LedgerClient client, SimulatedDevice device) {
    this.client = client;
    this.device = device;
  }

  /**
   * Enrols a new device on {@code server} through {@code http}, which devices share; its batches
   * then go over a connection of its own ({@link LedgerClient#withOwnConnections}).
   */
  static LiveDevice enroll(URI server, HttpClient http, String token, String deviceId)
      throws IOException {
    LedgerClient client = new LedgerClient(server, Duration.ofSeconds(30), http);
    SimulatedDevice device = SimulatedDevice.create(deviceId, new SecureRandom());
    try {
      if (!client.enroll(device.deviceId(), device.publicKeyBase64(), token).ok()) {
        throw new IOException("enroll " + deviceId + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while enrolling", e);
    }
    return new LiveDevice(client.withOwnConnections(), device);
  }

  /**
   * {@code devices} capturing {@code rate} messages a second between them (each an equal share,
   * each on threads of its own) into {@code room} for {@code duration}, as {@link #run} does;
   * numbers interleave so that each message's number is unique. Returns once every capture of every
   * device was acknowledged; the achieved rate is over the time until the last device's last
   * acknowledgement.
   */
  static Run runAll(
      List<LiveDevice> devices,
      String room,
      int rate,
      Duration duration,
      Duration linger,
      Map<Long, Long> acked)
      throws IOException, InterruptedException {
    long start = System.nanoTime();
    int n = devices.size();
    CountDownLatch measured = new CountDownLatch(1);
    AtomicLong threads = new AtomicLong();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            n, r -> new Thread(r, CpuUse.DEVICE_THREAD + "send-" + threads.incrementAndGet()));
    try {
      List<Future<Run>> runs = new ArrayList<>();
      for (int d = 0; d < n; d++) {
        LiveDevice device = devices.get(d);
        int first = d;
        double share = (double) rate / n;
        runs.add(
            pool.submit(
                () -> device.run(room, share, duration, linger, acked, start, first, n, measured)));
      }
      long sent = 0;
      long resends = 0;
      long maxBacklog = 0;
      Latencies roundTrips = new Latencies();
      for (Future<Run> f : runs) {
        Run r;
        try {
          r = f.get();
        } catch (ExecutionException e) {
          throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        }
        sent += r.sent();
        resends += r.resends();
        maxBacklog = Math.max(maxBacklog, r.maxBacklog());
        roundTrips.merge(r.roundTrips());
      }
      long done = System.nanoTime();
      CpuUse cpu = CpuUse.now();
      double window = duration.toNanos() / 1e9;
      double draining = Math.max(window, (done - start - linger.toNanos()) / 1e9);
      return new Run(sent, sent / window, sent / draining, maxBacklog, roundTrips, resends, cpu);
    } finally {
      measured.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * Captures {@code rate} messages a second into {@code room} for {@code duration} from {@code
   * start}, syncing with {@code linger}; capture k gets the number {@code firstNumber + k * step},
   * and its due time goes into {@code acked} under that number before it is sent. Returns once
   * every capture was acknowledged by the server; its capture thread ends once {@code measured} is
   * counted down.
   */
  Run run(
      String room,
      double rate,
      Duration duration,
      Duration linger,
      Map<Long, Long> acked,
      long start,
      long firstNumber,
      long step,
      CountDownLatch measured)
      throws IOException, InterruptedException {
    LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    AtomicBoolean capturing = new AtomicBoolean(true);
    AtomicLong captured = new AtomicLong();
    Thread sender = Thread.currentThread();
    long end = start + duration.toNanos();
    long period = Math.round(1_000_000_000L / rate);
    Thread capture =
        new Thread(
            () -> {
              for (long k = 0; ; k++) {
                long due = start + k * period;
                if (due >= end) {
                  capturing.set(false);
                  try {
                    measured.await();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                  return;
                }
                long wait = due - System.nanoTime();
                if (wait > 0) {
                  LockSupport.parkNanos(wait);
                }
                long n = firstNumber + k * step;
                acked.put(n, due);
                queue.add(new Pending(n, due));
                captured.incrementAndGet();
                if (queue.size() >= BATCH - 1) {
                  LockSupport.unpark(sender);
                }
              }
            },
            CpuUse.DEVICE_THREAD + "capture");
    capture.setDaemon(true);
    capture.start();
    long maxBacklog = 0;
    long resends = 0;
    Latencies roundTrips = new Latencies();
    long millis = System.currentTimeMillis();
    while (capturing.get() || !queue.isEmpty()) {
      Pending first = queue.poll(50, TimeUnit.MILLISECONDS);
      if (first == null) {
        continue;
      }
      // the daemon's rule: wait for the linger from the oldest pending capture, unless a full
      // batch (or a backlog) is already there; the capture thread wakes this one when a batch
      // fills, so hundreds of lingering devices do not poll
      long sendAt = first.dueNanos() + linger.toNanos();
      for (long wait = sendAt - System.nanoTime();
          queue.size() + 1 < BATCH && wait > 0;
          wait = sendAt - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      maxBacklog = Math.max(maxBacklog, queue.size() + 1);
      List<Pending> batch = new ArrayList<>();
      batch.add(first);
      queue.drainTo(batch, BATCH - 1);
      List<DanmakuRecord> drafts = new ArrayList<>();
      for (Pending p : batch) {
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
                "live #" + p.n(),
                1_000L,
                1,
                0xFFFFFF,
                25,
                millis << 16,
                0));
      }
      var request = device.append(drafts);
      long posted = System.nanoTime();
      LedgerClient.Reply<?> r = null;
      for (int attempt = 1; r == null; attempt++) {
        try {
          r = client.postBatch(device.deviceId(), request);
        } catch (IOException cut) {
          // a link that dropped the connection: the same batch again, answered from the stored
          // outcomes if the server had it (docs/sync.md, "Failures")
          if (attempt == MAX_ATTEMPTS) {
            throw cut;
          }
          resends++;
          LockSupport.parkNanos(Math.min(1_000, 10L << attempt) * 1_000_000L);
        }
      }
      roundTrips.add(System.nanoTime() - posted);
      if (!r.ok()) {
        throw new IOException("batch failed: " + r.code());
      }
    }
    long done = System.nanoTime();
    double window = (end - start) / 1e9;
    double draining = Math.max(window, (done - start - linger.toNanos()) / 1e9);
    return new Run(
        captured.get(),
        captured.get() / window,
        captured.get() / draining,
        maxBacklog,
        roundTrips,
        resends,
        null);
  }
}
