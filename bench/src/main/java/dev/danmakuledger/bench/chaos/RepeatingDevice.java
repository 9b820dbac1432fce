package dev.danmakuledger.bench.chaos;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.bench.ingest.MessageStream;
import dev.danmakuledger.bench.ingest.SimulatedDevice;
import dev.danmakuledger.protocol.json.Json;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.Outcome;
import dev.danmakuledger.protocol.wire.RecordOutcome;
import java.io.IOException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * A device without edge deduplication (docs/architecture.md §10: Redis and SQL only see repeats
 * from such devices), running in the harness during the faults: its signed log carries repeats of
 * its own earlier messages (same content: the server must answer DUPLICATE) and changed repeats
 * (same key, other text: CONFLICT), sent through the fault proxy like the agents' batches. A batch
 * is resent, unchanged, until the server has verified it; the verdict then checks that each key is
 * stored once, as first sent, and that every DUPLICATE/CONFLICT outcome resolves to that message.
 */
final class RepeatingDevice implements Runnable {
  private static final MediaType JSON = MediaType.get("application/json");

  private final SimulatedDevice device;
  private final MessageStream stream;
  private final String baseUrl;
  private final String enrollToken;
  private final OkHttpClient http = ChaosAgent.http();
  private final ObjectMapper json = Json.mapper();
  private final Set<String> firstSent = ConcurrentHashMap.newKeySet();
  private final List<String> resolveKeys = Collections.synchronizedList(new ArrayList<>());
  private final SecureRandom random = new SecureRandom();
  private volatile boolean stopping;
  private volatile Exception failure;
  private Thread thread;

  RepeatingDevice(
      String deviceId, List<String> rooms, String baseUrl, String enrollToken, long seed) {
    this.device = SimulatedDevice.create(deviceId, new SecureRandom());
    this.stream = new MessageStream(deviceId, rooms, 0.25, seed, System.currentTimeMillis());
    this.baseUrl = baseUrl;
    this.enrollToken = enrollToken;
  }

  String deviceId() {
    return device.deviceId();
  }

  void start() {
    thread = new Thread(this, "repeating-device");
    thread.setDaemon(true);
    thread.start();
  }

  /**
   * Stops after the batch in flight is verified.
   *
   * @throws IllegalStateException when the device failed, or did not settle within 3 minutes
   */
  void finish() throws InterruptedException {
    stopping = true;
    thread.join(180_000);
    if (thread.isAlive()) {
      throw new IllegalStateException("repeating device: got no settled batch in 3 min, want one");
    }
    if (failure != null) {
      throw new IllegalStateException("repeating device failed: " + failure, failure);
    }
  }

  /** Records appended to its log. */
  long size() {
    return device.size();
  }

  /** Keys of the messages sent first (the ones that must be stored). */
  Set<String> firstSent() {
    return new HashSet<>(firstSent);
  }

  /** Keys answered DUPLICATE or CONFLICT. */
  List<String> resolveKeys() {
    return List.copyOf(resolveKeys);
  }

  @Override
  public void run() {
    try {
      enroll();
      while (!stopping) {
        List<DanmakuRecord> drafts = new ArrayList<>();
        Set<String> inBatch = new HashSet<>();
        for (DanmakuRecord r : stream.nextBatch(8)) {
          boolean repeat = firstSent.contains(r.key().toString());
          if (!repeat && inBatch.add(r.key().toString())) {
            drafts.add(r);
          } else if (repeat) {
            drafts.add(random.nextInt(3) == 0 ? changed(r) : r);
          }
        }
        send(device.append(drafts), inBatch);
        Thread.sleep(300);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      failure = e;
    }
  }

  private static DanmakuRecord changed(DanmakuRecord r) {
    return new DanmakuRecord(
        r.key(),
        r.deviceId(),
        r.room(),
        r.user(),
        r.text() + " (edited)",
        r.playbackMs(),
        r.mode(),
        r.color(),
        r.fontSize(),
        r.hlc(),
        r.index());
  }

  private void enroll() throws Exception {
    byte[] body =
        json.writeValueAsBytes(
            new EnrollRequest(device.deviceId(), device.publicKeyBase64(), enrollToken));
    while (true) {
      try (Response res = call(post("/v1/devices", body))) {
        if (res.isSuccessful()) {
          return;
        }
      } catch (IOException e) {
        // a fault: try again
      }
      Thread.sleep(200);
    }
  }

  /** Sends {@code batch} until the server holds it; notes the outcomes when a reply arrives. */
  private void send(BatchRequest batch, Set<String> fresh) throws Exception {
    long newSize = batch.oldSize() + batch.records().size();
    byte[] body = json.writeValueAsBytes(batch);
    String path = "/v1/devices/" + device.deviceId() + "/batches";
    while (true) {
      try (Response res = call(post(path, body))) {
        if (res.code() == 200) {
          BatchResponse r = json.readValue(res.body().bytes(), BatchResponse.class);
          for (RecordOutcome o : r.outcomes()) {
            if (o.outcome() == Outcome.DUPLICATE || o.outcome() == Outcome.CONFLICT) {
              resolveKeys.add(o.idempotencyKey());
            }
          }
          firstSent.addAll(fresh);
          return;
        }
      } catch (IOException e) {
        // a fault: find out below whether the server took the batch
      }
      Long verified = verifiedSize();
      if (verified != null && verified >= newSize) {
        firstSent.addAll(fresh); // taken; its reply was lost
        return;
      }
      if (verified != null && verified != batch.oldSize()) {
        throw new IllegalStateException(
            "repeating device: server verified "
                + verified
                + ", want "
                + batch.oldSize()
                + " or "
                + newSize);
      }
      Thread.sleep(200);
    }
  }

  private Long verifiedSize() throws InterruptedException {
    Request req = new Request.Builder().url(baseUrl + "/v1/devices/" + deviceId() + "/log").build();
    try (Response res = call(req)) {
      if (res.code() != 200) {
        return null;
      }
      return json.readValue(res.body().bytes(), LogState.class).verifiedSize();
    } catch (IOException e) {
      return null;
    }
  }

  private Request post(String path, byte[] body) {
    return new Request.Builder().url(baseUrl + path).post(RequestBody.create(body, JSON)).build();
  }

  private Response call(Request req) throws IOException, InterruptedException {
    if (Thread.interrupted()) {
      throw new InterruptedException();
    }
    return http.newCall(req).execute();
  }
}
