package dev.danmakuledger.demo.harness;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.json.Json;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.RoomPage;
import dev.danmakuledger.protocol.wire.admin.DeviceList;
import dev.danmakuledger.protocol.wire.admin.Overview;
import dev.danmakuledger.protocol.wire.admin.RoomList;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import okhttp3.ResponseBody;

/**
 * Reads what the sync server holds through its HTTP API as an operator (the admin token), so checks
 * compare agent state with every server row, held and rejected messages in full, never with
 * in-process counters. Anonymous readers see held and rejected slots without their content
 * (docs/security.md).
 */
public final class LedgerReader {
  private final OkHttpClient http;
  private final HttpUrl base;
  private final String adminToken;
  private final ObjectMapper json =
      Json.mapper().copy().disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  public LedgerReader(OkHttpClient http, String baseUrl, String adminToken) {
    this.http = http;
    this.base = HttpUrl.get(baseUrl);
    this.adminToken = adminToken;
  }

  /** {@code GET /v1/messages/{key}}; empty on 404. */
  public Optional<RoomMessage> message(String idempotencyKey) throws IOException {
    return get(url("v1", "messages", idempotencyKey), RoomMessage.class, true);
  }

  /** Every slot of a room in seq order, tombstones included. */
  public List<RoomMessage> room(String room) throws IOException {
    List<RoomMessage> out = new ArrayList<>();
    long after = 0;
    while (true) {
      HttpUrl u =
          url("v1", "rooms", room, "messages")
              .newBuilder()
              .addQueryParameter("after", Long.toString(after))
              .addQueryParameter("limit", "1000")
              .build();
      RoomPage page =
          get(u, RoomPage.class, true)
              .orElseThrow(() -> new IOException("room " + room + " not found"));
      if (page.messages().isEmpty()) {
        return out;
      }
      out.addAll(page.messages());
      after = page.next();
    }
  }

  /** {@code GET /v1/devices/{id}/log}. */
  public LogState log(String deviceId) throws IOException {
    return get(url("v1", "devices", deviceId, "log"), LogState.class, false)
        .orElseThrow(() -> new IOException("device " + deviceId + " not found"));
  }

  /** {@code GET /admin/overview}. */
  public Overview overview() throws IOException {
    return get(url("admin", "overview"), Overview.class, true).orElseThrow();
  }

  /** {@code GET /admin/devices}. */
  public DeviceList devices() throws IOException {
    return get(url("admin", "devices"), DeviceList.class, true).orElseThrow();
  }

  /** {@code GET /admin/rooms}. */
  public RoomList rooms() throws IOException {
    return get(url("admin", "rooms"), RoomList.class, true).orElseThrow();
  }

  private HttpUrl url(String... segments) {
    HttpUrl.Builder b = base.newBuilder();
    for (String s : segments) {
      b.addPathSegment(s);
    }
    return b.build();
  }

  private <T> Optional<T> get(HttpUrl url, Class<T> type, boolean admin) throws IOException {
    Request.Builder req = new Request.Builder().url(url).get();
    if (admin) {
      req.header("Authorization", "Bearer " + adminToken);
    }
    try (Response r = http.newCall(req.build()).execute()) {
      ResponseBody body = r.body();
      String text = body == null ? "" : body.string();
      if (r.code() == 404) {
        return Optional.empty();
      }
      if (!r.isSuccessful()) {
        throw new IOException("GET " + url + ": HTTP " + r.code() + " " + text);
      }
      return Optional.of(json.readValue(text, type));
    }
  }
}
