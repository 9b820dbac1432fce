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

  /** One pending capture: its number, when it was due and when its capture thread made it. */
  private record Pending(long n, long dueNanos, long capturedNanos) {}

  /** Queued by the capture thread after its last capture: the sender stops once it took it. */
  private static final Pending END = new Pending(-1, 0, 0);

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
   * @param waited each capture's time from when it was due until its batch was posted: the linger,
   *     or the answer to the device's batch in flight
   * @param late each capture's time from when it was due until its capture thread made it
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
      Latencies waited,
      Latencies late,
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
   * Where the devices of one run start: each device's threads wait here until every device's are
   * up, so that none of the schedule passes while threads are still being created.
   */
  private static final class StartLine {
    private final CountDownLatch ready;
    private final CountDownLatch go = new CountDownLatch(1);
    private volatile long start;

    StartLine(int devices) {
      ready = new CountDownLatch(devices);
    }

    /** Called once by each device when its threads are up; returns the run's start. */
    long arrive() throws InterruptedException {
      ready.countDown();
      return await();
    }

    long await() throws InterruptedException {
      go.await();
      return start;
    }

    void release() throws InterruptedException {
      ready.await();
      start = System.nanoTime();
      go.countDown();
    }
  }

  /**
   * {@code devices} capturing {@code rate} messages a second between them (each an equal share,
   * each on threads of its own) into {@code room} for {@code duration}, as {@link #run} does.
   * Numbers and due times interleave: message n is due {@code n / rate} seconds after the start,
   * whichever device captures it, so the devices together capture at the offered rate evenly, as
   * one device would, and no two capture at the same moment. The clock starts once every device's
   * threads are up. Returns once every capture of every device was acknowledged; the achieved rate
   * is over the time until the last device's last acknowledgement.
   */
  static Run runAll(
      List<LiveDevice> devices,
      String room,
      int rate,
      Duration duration,
      Duration linger,
      Map<Long, Long> acked,
      Map<Long, Long> replied)
      throws IOException, InterruptedException {
    int n = devices.size();
    StartLine line = new StartLine(n);
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
        runs.add(
            pool.submit(
                () ->
                    device.run(
                        room, rate, duration, linger, acked, replied, line, first, n, measured)));
      }
      line.release();
      long start = line.await();
      long sent = 0;
      long resends = 0;
      long maxBacklog = 0;
      Latencies roundTrips = new Latencies();
      Latencies waited = new Latencies();
      Latencies late = new Latencies();
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
        waited.merge(r.waited());
        late.merge(r.late());
      }
      long done = System.nanoTime();
      CpuUse cpu = CpuUse.now();
      double window = duration.toNanos() / 1e9;
      double draining = Math.max(window, (done - start - linger.toNanos()) / 1e9);
      return new Run(
          sent, sent / window, sent / draining, maxBacklog, roundTrips, waited, late, resends, cpu);
    } finally {
      measured.countDown();
      pool.shutdownNow();
    }
  }

  /**
   * Captures into {@code room} for {@code duration} from the start of {@code line}, syncing with
   * {@code linger}: capture k gets the number {@code n = firstNumber + k * step} and is due {@code
   * n / rate} seconds after the start ({@code rate} being all devices' together). Its due time goes
   * into {@code acked} under its number before it is sent, and the time its batch was answered into
   * {@code replied} after. Returns once every capture was acknowledged by the server; its capture
   * thread ends once {@code measured} is counted down.
   */
  Run run(
      String room,
      int rate,
      Duration duration,
      Duration linger,
      Map<Long, Long> acked,
      Map<Long, Long> replied,
      StartLine line,
      long firstNumber,
      long step,
      CountDownLatch measured)
      throws IOException, InterruptedException {
    LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
    AtomicLong captured = new AtomicLong();
    Thread sender = Thread.currentThread();
    double perMessage = 1e9 / rate;
    Thread capture =
        new Thread(
            () -> {
              long start;
              try {
                start = line.await();
              } catch (InterruptedException e) {
                queue.add(END);
                return;
              }
              long end = start + duration.toNanos();
              for (long k = 0; ; k++) {
                long n = firstNumber + k * step;
                long due = start + Math.round(n * perMessage);
                if (due >= end) {
                  queue.add(END);
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
                acked.put(n, due);
                queue.add(new Pending(n, due, System.nanoTime()));
                captured.incrementAndGet();
                if (queue.size() >= BATCH - 1) {
                  LockSupport.unpark(sender);
                }
              }
            },
            CpuUse.DEVICE_THREAD + "capture");
    capture.setDaemon(true);
    capture.start();
    long start = line.arrive();
    long end = start + duration.toNanos();
    long maxBacklog = 0;
    long resends = 0;
    Latencies roundTrips = new Latencies();
    Latencies waited = new Latencies();
    Latencies late = new Latencies();
    long millis = System.currentTimeMillis();
    // the sender sleeps until a capture arrives: 256 devices polling their queues would wake
    // thousands of times a second on the cores the servers under test use
    for (Pending first = queue.take(); first != END; first = queue.take()) {
      // the daemon's rule: wait for the linger from the oldest pending capture, unless a full
      // batch (or a backlog) is already there; the capture thread wakes this one when a batch
      // fills, so hundreds of lingering devices do not poll
      long sendAt = first.dueNanos() + linger.toNanos();
      for (long wait = sendAt - System.nanoTime();
          queue.size() + 1 < BATCH && wait > 0;
          wait = sendAt - System.nanoTime()) {
        LockSupport.parkNanos(wait);
      }
      List<Pending> batch = new ArrayList<>();
      batch.add(first);
      queue.drainTo(batch, BATCH - 1);
      boolean last = batch.get(batch.size() - 1) == END;
      if (last) {
        batch.remove(batch.size() - 1);
      }
      maxBacklog = Math.max(maxBacklog, batch.size() + queue.size());
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
      for (Pending p : batch) {
        waited.add(posted - p.dueNanos());
        late.add(p.capturedNanos() - p.dueNanos());
      }
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
      long answered = System.nanoTime();
      roundTrips.add(answered - posted);
      for (Pending p : batch) {
        replied.put(p.n(), answered);
      }
      if (!r.ok()) {
        throw new IOException("batch failed: " + r.code());
      }
      if (last) {
        break;
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
        waited,
        late,
        resends,
        null);
  }
}
