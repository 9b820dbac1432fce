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
 * is resent, unchanged, until the server has verified it (and earlier ones again if the server lost
 * them); the verdict then checks that each key is stored once, as first sent, and that every
 * DUPLICATE/CONFLICT outcome resolves to that message.
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
  private final List<BatchRequest> batches = new ArrayList<>();
  private final List<Set<String>> fresh = new ArrayList<>();
  private volatile long rewinds;
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

  /** Times the server's verified size was found below a batch the device had settled. */
  long rewinds() {
    return rewinds;
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
        batches.add(device.append(drafts));
        fresh.add(inBatch);
        settle();
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

  /**
   * Sends the newest batch until the server holds it, noting the outcomes when a reply arrives.
   * When the server's verified size is below the batch (it lost commits it had acknowledged: an
   * embedded H2 killed before its write delay flushed them), it resends from there, as an agent
   * resumes from the size the server reports.
   */
  private void settle() throws Exception {
    int i = batches.size() - 1;
    while (i < batches.size()) {
      BatchRequest b = batches.get(i);
      long newSize = b.oldSize() + b.records().size();
      long verified = attempt(b, fresh.get(i));
      if (verified >= newSize) {
        i++;
      } else if (verified >= 0 && verified < b.oldSize()) {
        rewinds++;
        i = batchAt(verified);
      } else {
        Thread.sleep(200);
      }
    }
  }

  /** One try at {@code batch}; returns the server's verified size, or -1 when unknown. */
  private long attempt(BatchRequest batch, Set<String> keys) throws Exception {
    long newSize = batch.oldSize() + batch.records().size();
    String path = "/v1/devices/" + device.deviceId() + "/batches";
    try (Response res = call(post(path, json.writeValueAsBytes(batch)))) {
      if (res.code() == 200) {
        BatchResponse r = json.readValue(res.body().bytes(), BatchResponse.class);
        for (RecordOutcome o : r.outcomes()) {
          if (o.outcome() == Outcome.DUPLICATE || o.outcome() == Outcome.CONFLICT) {
            resolveKeys.add(o.idempotencyKey());
          }
        }
        firstSent.addAll(keys);
        return newSize;
      }
    } catch (IOException e) {
      // a fault: ask the server below whether it took the batch
    }
    Long verified = verifiedSize();
    if (verified == null) {
      return -1;
    }
    if (verified >= newSize) {
      firstSent.addAll(keys); // taken; its reply was lost
    }
    return verified;
  }

  private int batchAt(long size) {
    for (int i = 0; i < batches.size(); i++) {
      if (batches.get(i).oldSize() == size) {
        return i;
      }
    }
    throw new IllegalStateException(
        "repeating device: server verified " + size + ", want the start of one of its batches");
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
