package dev.danmakuledger.edge.cli;

import dev.danmakuledger.edge.EdgeAgent;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncDaemon;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.SyncStoppedException;
import dev.danmakuledger.edge.sync.Syncer;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import okhttp3.OkHttpClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code edge-agent sync}: pushes the device log to the enrolled sync server (docs/sync.md). */
@Command(
    name = "sync",
    mixinStandardHelpOptions = true,
    description =
        "Send captured records to the sync server in signed batches; store each record's"
            + " outcome and the server receipts. With --once: sync what is captured now and exit"
            + " 0 only if every record has an outcome and a receipt covers the whole log."
            + " Without: keep syncing until stopped.")
final class SyncCommand implements Callable<Integer>, EdgeAgentMain.ClockAware {
  @Spec CommandSpec spec;
  @Mixin DataDirOption dir;
  @Mixin Options options;

  @Option(names = "--once", description = "Sync what is captured now, then exit.")
  boolean once;

  @Option(
      names = "--progress",
      negatable = true,
      description = "Progress bar (default: on a terminal).")
  Boolean progress;

  private Clock clock;

  /** Released once the agent is closed, so a shutdown hook can wait for it. */
  private final CountDownLatch cleanedUp = new CountDownLatch(1);

  /** The linger of {@code sync}: a catch-up fills its batches, latency matters little. */
  static final Duration SYNC_LINGER = Duration.ofSeconds(1);

  /**
   * The linger of {@code run}, the live venue's agent: measured with {@code bin/bench live}
   * (docs/benchmarks.md, live) as the value that keeps ack-to-viewer p99 within 50 ms plus the
   * linger at 1,000 messages/s while the device keeps up.
   */
  static final Duration RUN_LINGER = Duration.ofMillis(50);

  /** Sync tunables shared by {@code sync} and {@code run}. */
  static final class Options {
    @Option(
        names = "--server",
        paramLabel = "URL",
        description = "Sync server (default: the one `enroll` recorded).")
    String server;

    @Option(
        names = "--batch-size",
        defaultValue = "500",
        paramLabel = "N",
        description = "Most records per batch (default: ${DEFAULT-VALUE}).")
    int batchSize;

    @Option(
        names = "--linger",
        paramLabel = "DURATION",
        description =
            "How long new captures wait for a full batch before a partial one is sent"
                + " (ISO-8601; default: PT1S for sync, PT0.05S for run, which a live venue"
                + " needs: docs/sync.md, \"Linger\").")
    Duration linger;

    @Option(
        names = "--max-attempts",
        defaultValue = "8",
        paramLabel = "N",
        description =
            "Attempts per request on network errors, 429 and 503 (default: ${DEFAULT-VALUE}).")
    int maxAttempts;

    @Option(
        names = "--window",
        defaultValue = "4",
        paramLabel = "N",
        description =
            "Most batches in flight at once, 1..16 (default: ${DEFAULT-VALUE}); a server that"
                + " announces a smaller window, or none (one batch at a time), lowers it; 1 sends"
                + " one batch at a time (docs/sync.md, \"Batches in flight\").")
    int window;

    @Option(
        names = "--compress",
        negatable = true,
        defaultValue = "true",
        fallbackValue = "true",
        description =
            "Send batches in gzip when the server takes it, in the binary body where it takes"
                + " that too (default: on; --no-compress sends plain JSON: docs/sync.md,"
                + " \"Compressed batches\", \"Binary batches\").")
    boolean compress;

    /** The settings, with {@code defaultLinger} unless {@code --linger} was given. */
    SyncSettings settings(Duration defaultLinger) {
      return SyncSettings.defaults()
          .withBatchSize(batchSize)
          .withLinger(linger != null ? linger : defaultLinger)
          .withMaxAttempts(maxAttempts)
          .withWindow(window);
    }

    /** The server link, with {@code --server} overriding the enrolled URL. */
    ServerLink link(Path dataDir) throws IOException {
      ServerLink link =
          ServerLink.load(dataDir)
              .orElseThrow(
                  () ->
                      new IllegalArgumentException(
                          "device in "
                              + dataDir
                              + " is not enrolled; run `edge-agent enroll --data-dir "
                              + dataDir
                              + " --server URL --token-file F` first"));
      return server == null ? link : link.withServerUrl(server);
    }
  }

  @Override
  public void clock(Clock clock) {
    this.clock = clock;
  }

  /** The syncer of an open agent. */
  static Syncer syncer(
      EdgeAgent agent,
      OkHttpClient http,
      ServerLink link,
      SyncSettings s,
      boolean compress,
      Clock clock) {
    return Syncer.builder(
            agent.store(),
            agent.identity(),
            new SyncClient(http, link.serverUrl(), clock, compress),
            link.receiptVerifier(),
            clock)
        .settings(s)
        .metadata(() -> Syncer.metadataOf(agent.capture().stats()))
        .build();
  }

  /**
   * Starts background sync for {@code edge-agent run} when the device is enrolled; the returned
   * handle stops it. Not enrolled: says so and returns a handle that does nothing.
   */
  static AutoCloseable background(EdgeAgent agent, Options options, Clock clock, PrintWriter out)
      throws IOException {
    if (ServerLink.load(agent.dataDir()).isEmpty() && options.server == null) {
      out.printf("not enrolled: capturing only (run `edge-agent enroll` to sync)%n");
      return () -> {};
    }
    SyncSettings settings = options.settings(RUN_LINGER);
    ServerLink link = options.link(agent.dataDir());
    OkHttpClient http = SyncClient.defaultHttp();
    SecureRandom random = new SecureRandom();
    SyncDaemon daemon =
        SyncDaemon.start(
            syncer(agent, http, link, settings, options.compress, clock),
            () -> agent.capture().logStatus().size(),
            settings,
            new Backoff(settings.backoffBase(), settings.backoffCap(), random::nextDouble),
            Sleeper.real());
    out.printf(
        "syncing to %s in batches of up to %d (linger %s, up to %d in flight)%n",
        link.serverUrl(), settings.batchSize(), settings.linger(), settings.window());
    return () -> {
      daemon.close();
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
    };
  }

  @Override
  public Integer call() throws Exception {
    SyncSettings settings = options.settings(SYNC_LINGER);
    ServerLink link = options.link(dir.dataDir);
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    OkHttpClient http = SyncClient.defaultHttp();
    try (EdgeAgent agent = EdgeAgent.open(dir.dataDir, clock)) {
      Syncer syncer = syncer(agent, http, link, settings, options.compress, clock);
      if (!once) {
        return daemon(agent, syncer, settings, out);
      }
      boolean showProgress = progress != null ? progress : System.console() != null;
      ProgressBar bar = showProgress ? new ProgressBar(err, "syncing") : null;
      SyncReport report;
      try {
        report = bar == null ? syncer.sync() : syncer.sync(bar::update);
      } catch (SyncStoppedException e) {
        if (bar != null) {
          bar.finish();
        }
        err.println("edge-agent: SYNC STOPPED (" + e.reason() + "): " + e.getMessage());
        return ExitCodes.FAILED;
      }
      if (bar != null) {
        bar.finish();
      }
      out.printf(
          "synced %d of %d records to %s in %d batches (%d retries, %d resumes); outcomes %s;"
              + " receipt covers %d%n",
          report.verifiedSize(),
          report.localSize(),
          link.serverUrl(),
          report.batches(),
          report.retries(),
          report.resumes(),
          report.outcomes(),
          report.receiptSize());
      if (!report.complete()) {
        err.printf(
            "edge-agent: sync incomplete: %d records without an outcome, receipt covers %d of %d%n",
            report.unsynced(), report.receiptSize(), report.localSize());
        return ExitCodes.FAILED;
      }
      return ExitCodes.OK;
    } finally {
      http.dispatcher().executorService().shutdown();
      http.connectionPool().evictAll();
      cleanedUp.countDown();
    }
  }

  private int daemon(EdgeAgent agent, Syncer syncer, SyncSettings settings, PrintWriter out)
      throws InterruptedException {
    SecureRandom random = new SecureRandom();
    CountDownLatch stop = new CountDownLatch(1);
    Thread hook =
        new Thread(
            () -> {
              stop.countDown();
              try {
                cleanedUp.await(20, java.util.concurrent.TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "edge-sync-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try (SyncDaemon daemon =
        SyncDaemon.start(
            syncer,
            () -> agent.capture().logStatus().size(),
            settings,
            new Backoff(settings.backoffBase(), settings.backoffCap(), random::nextDouble),
            Sleeper.real())) {
      out.printf(
          "edge-agent %s syncing continuously; Ctrl-C to stop%n", agent.identity().deviceId());
      out.flush();
      while (!stop.await(1, java.util.concurrent.TimeUnit.SECONDS)) {
        if (daemon.stoppedBy() != null) {
          spec.commandLine()
              .getErr()
              .println("edge-agent: SYNC STOPPED: " + daemon.stoppedBy().getMessage());
          return ExitCodes.FAILED;
        }
      }
      return ExitCodes.OK;
    }
  }
}
