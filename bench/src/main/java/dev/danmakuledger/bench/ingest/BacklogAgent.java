package dev.danmakuledger.bench.ingest;

import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.sync.Enrollment;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import okhttp3.OkHttpClient;

/**
 * The device of {@code bin/bench backlog}, as a child process with a heap of its own: a real edge
 * agent captures N messages while offline, then drains them into the server with one run of the
 * real {@link Syncer} (the {@code edge-agent sync --once} path), with up to WINDOW batches in
 * flight and gzip as the server takes it, or with {@code COMPRESS} false plain JSON (the {@code
 * --window} and {@code --no-compress} options of {@code edge-agent sync}). Prints one result line,
 * {@code backlog-agent records seconds batches peakHeapBytes cpuNanos jitNanos}: the heap peak, and
 * the CPU time of this JVM and of its compiler threads (-1 where {@code /proc} cannot be read),
 * during the drain.
 *
 * <p>Usage: {@code BacklogAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN RECORDS ROOMS WINDOW
 * COMPRESS}.
 */
public final class BacklogAgent {
  /** First word of the result line. */
  static final String RESULT = "backlog-agent";

  private static final int GROUP = 1024;

  private BacklogAgent() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 8) {
      System.err.println(
          "usage: BacklogAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN RECORDS ROOMS WINDOW"
              + " COMPRESS");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    String deviceId = args[1];
    int records = Integer.parseInt(args[4]);
    List<String> rooms = List.of(args[5].split(","));
    int window = Integer.parseInt(args[6]);
    boolean compress = Boolean.parseBoolean(args[7]);
    Clock clock = Clock.systemUTC();
    try (AgentDevice device = AgentDevice.openOrInit(dir, deviceId, clock)) {
      capture(device, records, rooms, clock);
      SyncClient client = new SyncClient(http(), args[2], clock, compress);
      ServerLink link = Enrollment.enroll(client, device.identity(), args[3], dir);
      SyncSettings settings = SyncSettings.defaults().withWindow(window);
      Syncer syncer =
          Syncer.builder(device.store(), device.identity(), client, link.receiptVerifier(), clock)
              .settings(settings)
              .metadata(() -> Syncer.metadataOf(device.stats()))
              .build();
      System.gc();
      resetHeapPeaks();
      CpuUse cpuBefore = CpuUse.now();
      long start = System.nanoTime();
      SyncReport report = syncer.sync();
      double seconds = (System.nanoTime() - start) / 1e9;
      CpuUse cpuAfter = CpuUse.now();
      if (!report.complete()) {
        throw new IllegalStateException("drain did not complete: " + report);
      }
      System.out.printf(
          Locale.ROOT,
          "%s %d %.3f %d %d %d %d%n",
          RESULT,
          report.recordsSent(),
          seconds,
          report.batches(),
          heapPeak(),
          cpuAfter.jvmNanos() < 0 || cpuBefore.jvmNanos() < 0
              ? -1
              : cpuAfter.jvmNanos() - cpuBefore.jvmNanos(),
          CpuUse.byRoleBetween(cpuBefore.threads(), cpuAfter.threads()).getOrDefault("JIT", -1L));
    }
  }

  private static void capture(AgentDevice device, int records, List<String> rooms, Clock clock)
      throws Exception {
    SecureRandom random = new SecureRandom();
    List<CompletableFuture<CaptureAck>> acks = new ArrayList<>(records);
    for (int from = 0; from < records; from += GROUP) {
      List<CaptureRequest> group = new ArrayList<>(GROUP);
      for (int i = from; i < Math.min(records, from + GROUP); i++) {
        String user = "u" + (i % 5000);
        group.add(
            new CaptureRequest(
                IdempotencyKey.generate(device.deviceId(), user, clock, random),
                rooms.get(i % rooms.size()),
                user,
                "backlog message #" + i,
                null,
                CaptureRequest.DEFAULT_MODE,
                CaptureRequest.DEFAULT_COLOR,
                CaptureRequest.DEFAULT_FONT_SIZE));
      }
      acks.addAll(device.submitAll(group));
    }
    for (CompletableFuture<CaptureAck> f : acks) {
      CaptureService.await(f);
    }
  }

  private static OkHttpClient http() {
    return new OkHttpClient.Builder()
        .connectTimeout(Duration.ofSeconds(5))
        .readTimeout(Duration.ofSeconds(120))
        .writeTimeout(Duration.ofSeconds(60))
        .connectionPool(SyncClient.connectionPool())
        // as the agent's own client: a dropped connection is the Syncer's to retry
        .retryOnConnectionFailure(false)
        .build();
  }

  static void resetHeapPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  /** The sum of the heap pools' peaks since {@link #resetHeapPeaks}. */
  static long heapPeak() {
    long peak = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP && pool.getPeakUsage() != null) {
        peak += pool.getPeakUsage().getUsed();
      }
    }
    return peak;
  }
}
