package dev.danmakuledger.ui.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.BatchRequest;
import dev.danmakuledger.protocol.wire.EnrollRequest;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.WireRecord;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/**
 * Feeds a {@link Ledger} into a real sync server over its device API (docs/architecture.md §4):
 * enrolls each device key, then sends signed batches exactly as an edge agent would.
 */
public final class ServerLoader {
  private static final MediaType JSON = MediaType.get("application/json");

  private final OkHttpClient http;
  private final HttpUrl base;
  private final ObjectMapper json = Json.mapper();

  public ServerLoader(OkHttpClient http, HttpUrl base) {
    this.http = http;
    this.base = base;
  }

  public void enroll(Ledger.Device d, String enrollToken) {
    post(
        base.newBuilder().addPathSegments("v1/devices").build(),
        new EnrollRequest(
            d.id, Base64.getEncoder().encodeToString(d.signer.publicKey()), enrollToken),
        200);
  }

  /** Sends records {@code [from, to)} with the device's checkpoint for {@code to}. */
  public void push(Ledger.Device d, int from, int to) {
    List<WireRecord> records = new ArrayList<>();
    for (DanmakuRecord r : d.records.subList(from, to)) {
      records.add(
          new WireRecord(r.index(), Base64.getEncoder().encodeToString(r.canonicalBytes())));
    }
    post(
        batches(d),
        new BatchRequest(from, records, d.checkpointAt(to), new BatchMetadata(to, 3, 2, 1)),
        200);
  }

  /**
   * Sends a validly signed checkpoint for the device's current size with a different root, as a
   * cloned device would; the server must refuse it as a fork.
   */
  public int fork(Ledger.Device d) {
    byte[] other = d.root().clone();
    other[0] ^= 1;
    String note =
        Checkpoints.sign(new Checkpoint(DeviceLog.origin(d.id), d.size(), other), d.signer);
    return post(batches(d), new BatchRequest(d.size(), List.of(), note, null), -1);
  }

  private HttpUrl batches(Ledger.Device d) {
    return base.newBuilder()
        .addPathSegment("v1")
        .addPathSegment("devices")
        .addPathSegment(d.id)
        .addPathSegment("batches")
        .build();
  }

  private int post(HttpUrl url, Object body, int want) {
    try {
      Request request =
          new Request.Builder()
              .url(url)
              .post(RequestBody.create(json.writeValueAsBytes(body), JSON))
              .build();
      try (Response r = http.newCall(request).execute()) {
        if (want > 0 && r.code() != want) {
          throw new IllegalStateException(
              "POST " + url + ": got " + r.code() + " " + r.body().string() + ", want " + want);
        }
        return r.code();
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
