package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.AgentDevice;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.sync.Backoff;
import dev.danmakuledger.edge.sync.Enrollment;
import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.edge.sync.Sleeper;
import dev.danmakuledger.edge.sync.SyncClient;
import dev.danmakuledger.edge.sync.SyncDaemon;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import okhttp3.ConnectionPool;
import okhttp3.OkHttpClient;

/**
 * One agent of the chaos run, as a child process the harness can SIGKILL: a real edge agent ({@link
 * AgentDevice}) capturing continuously (a share of captures are client retries of earlier
 * messages), appending each acknowledged key to {@code acked.log} after its durable ack, while the
 * agent's own sync daemon ({@link SyncDaemon} and {@link Syncer}) pushes the log through the fault
 * proxy. Its HTTP client keeps no idle connections, so every request opens a connection of its own
 * and the proxy draws a fault per request.
 *
 * <p>Usage: {@code ChaosAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN ROOMS RATE SEED}.
 */
public final class ChaosAgent {
  /** File, in the data directory, of keys whose capture was acknowledged. */
  public static final String ACKED_LOG = "acked.log";

  /** Sync tunables of the chaos agents: short linger and backoff so faults are met often. */
  static final SyncSettings SYNC =
      new SyncSettings(
          500, Duration.ofMillis(200), 4, Duration.ofMillis(100), Duration.ofSeconds(2));

  private ChaosAgent() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      System.err.println(
          "usage: ChaosAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN ROOMS RATE SEED");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    String deviceId = args[1];
    String server = args[2];
    String token = args[3];
    List<String> rooms = List.of(args[4].split(","));
    double rate = Double.parseDouble(args[5]);
    Random random = new Random(Long.parseLong(args[6]) ^ System.nanoTime());
    Clock clock = Clock.systemUTC();
    AgentDevice device = AgentDevice.openOrInit(dir, deviceId, clock);
    SyncClient client = new SyncClient(http(), server, clock);
    ServerLink link = enroll(client, device, token, dir);
    Backoff backoff = new Backoff(SYNC.backoffBase(), SYNC.backoffCap(), random::nextDouble);
    Syncer syncer =
        Syncer.builder(device.store(), device.identity(), client, link.receiptVerifier(), clock)
            .settings(SYNC)
            .backoff(backoff)
            .metadata(() -> Syncer.metadataOf(device.stats()))
            .build();
    SyncDaemon.start(syncer, device::logSize, SYNC, backoff, Sleeper.real());
    capture(device, dir, rooms, rate, random, clock);
  }

  /** An OkHttp client that keeps no idle connection: one connection per request. */
  static OkHttpClient http() {
    return new OkHttpClient.Builder()
        .connectTimeout(Duration.ofSeconds(2))
        .readTimeout(Duration.ofSeconds(10))
        .writeTimeout(Duration.ofSeconds(10))
        .callTimeout(Duration.ofSeconds(15))
        .retryOnConnectionFailure(false)
        .connectionPool(new ConnectionPool(0, 1, TimeUnit.SECONDS))
        .build();
  }

  private static void capture(
      AgentDevice device, Path dir, List<String> rooms, double rate, Random random, Clock clock)
      throws Exception {
    SecureRandom keys = new SecureRandom();
    List<CaptureRequest> history = new ArrayList<>();
    long pauseMillis = Math.max(1, Math.round(1000 / rate));
    try (BufferedWriter acked =
        Files.newBufferedWriter(
            dir.resolve(ACKED_LOG),
            StandardCharsets.US_ASCII,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      for (long i = 0; ; i++) {
        CaptureRequest request;
        if (!history.isEmpty() && random.nextInt(10) == 0) {
          request = history.get(random.nextInt(history.size()));
        } else {
          String user = "u" + random.nextInt(1000);
          request =
              new CaptureRequest(
                  IdempotencyKey.generate(device.deviceId(), user, clock, keys),
                  rooms.get(random.nextInt(rooms.size())),
                  user,
                  "chaos " + device.deviceId() + " #" + i,
                  null,
                  CaptureRequest.DEFAULT_MODE,
                  CaptureRequest.DEFAULT_COLOR,
                  CaptureRequest.DEFAULT_FONT_SIZE);
          if (history.size() < 256) {
            history.add(request);
          } else {
            history.set(random.nextInt(history.size()), request);
          }
        }
        CaptureAck ack = device.capture(request);
        acked.write(ack.idempotencyKey());
        acked.write('\n');
        acked.flush();
        Thread.sleep(pauseMillis);
      }
    }
  }

  private static ServerLink enroll(SyncClient client, AgentDevice device, String token, Path dir)
      throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        return Enrollment.enroll(client, device.identity(), token, dir);
      } catch (IOException e) {
        System.err.println("chaos-agent " + device.deviceId() + ": enrol: " + e.getMessage());
      }
      Thread.sleep(Math.min(2000, 100L << Math.min(attempt, 4)));
    }
  }
}
