package dev.danmakuledger.bench.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.demo.harness.EdgeNode;
import dev.danmakuledger.demo.harness.LedgerReader;
import dev.danmakuledger.edge.api.IngestServer;
import dev.danmakuledger.edge.importer.BilibiliImporter;
import dev.danmakuledger.edge.importer.ImportProgress;
import dev.danmakuledger.edge.importer.ImportSummary;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.sync.SyncReport;
import dev.danmakuledger.edge.sync.SyncSettings;
import dev.danmakuledger.edge.sync.Syncer;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.Overview;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * End to end, "Client retries": after a sync, the same messages are sent again through the agent's
 * local API and the file is imported again. Each retry is answered with the original ack carrying
 * the server's seq; nothing new reaches the server, and a subscriber of the room's SSE stream sees
 * every message exactly once.
 */
class ClientRetriesIT {
  static final int RESENDS = 30;
  static final MediaType JSON = MediaType.get("application/json");
  final Clock clock = Clock.systemUTC();
  final ObjectMapper json = Json.mapper();
  @TempDir Path tmp;

  static Stream<Backend> backends() {
    return Backend.all().stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("backends")
  void retriesGetTheOriginalSeqAndAreNeverRebroadcast(Backend backend) throws Exception {
    String room = Names.unique("room");
    Path file = OfflineThenOnlineIT.sampleFile(tmp);
    try (Cluster cluster = Cluster.start(backend, tmp.resolve("server"), c -> c.reviewRule(null));
        EdgeNode node = EdgeNode.init(tmp.resolve("agent"), Names.unique("kiosk"), clock);
        IngestServer local =
            IngestServer.start(
                new InetSocketAddress("127.0.0.1", 0),
                node.capture(),
                node.store(),
                node.config().maxStoreBytes())) {
      new BilibiliImporter(node.capture()).importFile(file, room, ImportProgress.none());
      long captured = node.store().logState().size();
      node.enroll(Cluster.HTTP, cluster.url(), cluster.enrollToken(), clock);
      Syncer syncer =
          node.syncer(
              Cluster.HTTP, cluster.url(), cluster.serverKey(), SyncSettings.defaults(), clock);
      assertTrue(syncer.sync().complete());
      LedgerReader reader = cluster.reader();

      try (SseCollector sse =
          new SseCollector(Cluster.HTTP, cluster.url() + "/v1/rooms/" + room + "/stream?after=0")) {
        Map<String, Long> originalSeq = new LinkedHashMap<>();
        for (StoredRecord r : node.store().records(100, RESENDS)) {
          originalSeq.put(r.idempotencyKey(), r.seq());
          JsonNode ack = post(local, CanonicalRecord.decode(r.canonical()), 200);
          assertTrue(ack.get("repeat").asBoolean(), ack.toString());
          assertEquals("CONFIRMED", ack.get("outcome").asText(), ack.toString());
          assertEquals(r.seq().longValue(), ack.get("seq").asLong(), "original seq in the ack");
          assertEquals(r.messageId(), ack.get("messageId").asText());
        }
        ImportSummary again =
            new BilibiliImporter(node.capture()).importFile(file, room, ImportProgress.none());
        assertEquals(0, again.captured());
        assertEquals(captured, again.duplicates());

        SyncReport resync = syncer.sync();
        assertEquals(0, resync.batches(), "retries add nothing to the log");

        DanmakuRecord sentinel =
            new DanmakuRecord(
                IdempotencyKey.generate(node.deviceId(), "closer", clock, new SecureRandom()),
                node.deviceId(),
                room,
                "closer",
                "the last message",
                null,
                1,
                0xFFFFFF,
                25,
                0,
                0);
        post(local, sentinel, 201);
        assertTrue(syncer.sync().complete());

        List<RoomMessage> seen = sse.awaitSeq(captured + 1, Duration.ofSeconds(30));
        assertEquals(captured + 1, seen.size(), "each message once on the stream");
        Set<String> keys = new HashSet<>();
        for (int i = 0; i < seen.size(); i++) {
          assertEquals(i + 1L, seen.get(i).seq());
          assertTrue(keys.add(seen.get(i).idempotencyKey()));
        }
        for (Map.Entry<String, Long> e : originalSeq.entrySet()) {
          assertEquals(e.getValue(), reader.message(e.getKey()).orElseThrow().seq());
        }
      }
      assertEquals(captured + 1, LedgerAssertions.roomIsComplete(reader, room).size());
      Overview o = reader.overview();
      assertEquals(0, o.duplicates().redis() + o.duplicates().sql(), "caught at the edge");
      assertEquals(RESENDS + captured, o.duplicates().edge(), "edge-reported repeats");
      LedgerAssertions.agentMatchesServer(node, reader);
    }
  }

  private JsonNode post(IngestServer local, DanmakuRecord r, int wantStatus) throws Exception {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("idempotencyKey", r.key().toString());
    body.put("room", r.room());
    body.put("user", r.user());
    body.put("text", r.text());
    body.put("playbackMs", r.playbackMs());
    body.put("mode", r.mode());
    body.put("color", r.color());
    body.put("fontSize", r.fontSize());
    Request req =
        new Request.Builder()
            .url("http://" + local.hostPort() + "/v1/danmaku")
            .post(RequestBody.create(json.writeValueAsBytes(body), JSON))
            .build();
    try (Response resp = Cluster.HTTP.newCall(req).execute()) {
      String text = resp.body().string();
      assertEquals(wantStatus, resp.code(), text);
      return json.readTree(text);
    }
  }
}
