package dev.danmakuledger.bench.chaos;

import dev.danmakuledger.bench.ingest.AgentDevice;
import dev.danmakuledger.bench.ingest.LedgerClient;
import dev.danmakuledger.bench.ingest.StoreSync;
import dev.danmakuledger.edge.capture.CaptureAck;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
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

/**
 * One agent of the chaos run, as a child process the harness can SIGKILL: a real edge agent ({@link
 * AgentDevice}) capturing continuously (a share of captures are client retries of earlier
 * messages), appending each acknowledged key to {@code acked.log} after its durable ack, while a
 * sync thread pushes the log through the fault proxy with backoff.
 *
 * <p>Usage: {@code ChaosAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN ROOMS RATE SEED}.
 */
public final class ChaosAgent {
  /** File, in the data directory, of keys whose capture was acknowledged. */
  public static final String ACKED_LOG = "acked.log";

  private ChaosAgent() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 7) {
      System.err.println(
          "usage: ChaosAgent DATA_DIR DEVICE_ID SERVER_URL ENROLL_TOKEN ROOMS RATE SEED");
      System.exit(2);
    }
    System.setProperty("jdk.httpclient.allowRestrictedHeaders", "connection");
    Path dir = Path.of(args[0]);
    String deviceId = args[1];
    LedgerClient client = new LedgerClient(URI.create(args[2]), Duration.ofSeconds(5), true);
    String token = args[3];
    List<String> rooms = List.of(args[4].split(","));
    double rate = Double.parseDouble(args[5]);
    Random random = new Random(Long.parseLong(args[6]) ^ System.nanoTime());
    Clock clock = Clock.systemUTC();
    AgentDevice device = AgentDevice.openOrInit(dir, deviceId, clock);
    enroll(client, device, token);
    Thread sync = new Thread(() -> syncLoop(client, device, clock, random), "chaos-sync");
    sync.setDaemon(true);
    sync.start();
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
                  IdempotencyKey.generate(deviceId, user, clock, keys),
                  rooms.get(random.nextInt(rooms.size())),
                  user,
                  "chaos " + deviceId + " #" + i,
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

  private static void enroll(LedgerClient client, AgentDevice device, String token)
      throws InterruptedException {
    for (int attempt = 0; ; attempt++) {
      try {
        LedgerClient.Reply<?> r = client.enroll(device.deviceId(), device.publicKeyBase64(), token);
        if (r.ok()) {
          return;
        }
        System.err.println("chaos-agent " + device.deviceId() + ": enrol: " + r.code());
      } catch (IOException e) {
        // the server or the proxy is down: retry
      }
      Thread.sleep(Math.min(2000, 100L << Math.min(attempt, 4)));
    }
  }

  private static void syncLoop(
      LedgerClient client, AgentDevice device, Clock clock, Random random) {
    StoreSync sync = new StoreSync(client, 500, clock);
    int failures = 0;
    while (true) {
      try {
        StoreSync.Result r = sync.push(device.deviceId(), device.store());
        if (r.synced()) {
          failures = 0;
          Thread.sleep(200);
          continue;
        }
        System.err.println("chaos-agent " + device.deviceId() + ": refused: " + r.refusal());
      } catch (IOException e) {
        // dropped connection, lost response, server down: back off and resume
      } catch (InterruptedException e) {
        return;
      } catch (Exception e) {
        System.err.println("chaos-agent " + device.deviceId() + ": sync: " + e);
      }
      failures++;
      long cap = Math.min(2000, 100L << Math.min(failures, 5));
      try {
        Thread.sleep(random.nextInt((int) cap) + 1);
      } catch (InterruptedException e) {
        return;
      }
    }
  }
}
