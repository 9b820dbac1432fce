package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.Tiles;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.error.Problem;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.room.MessageEntry;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.protocol.room.RoomLogEntry;
import dev.danmakuledger.protocol.wire.BatchResponse;
import dev.danmakuledger.testkit.TestDevice;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The room log end to end (docs/room-log.md): a device's batch is integrated, the checkpoint, tiles
 * and entry bundles are served as C2SP tlog-tiles and audit clean with {@code tlog verify-room}
 * from a mirror of the served bytes, hostile tile paths are refused, receipts are cosignatures, and
 * the audit bundle of a message proves it field by field and passes {@code tlog verify-bundle}
 * offline as served (and fails once its record is changed).
 */
final class RoomLogIT {
  private static final HexFormat HEX = HexFormat.of();
  private static final String ROOM = "audit-room";

  @TempDir Path dir;
  @TempDir Path mirror;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private HttpResponse<byte[]> raw(URI base, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofByteArray());
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aRoomLogIsServedAuditableAndEveryMessageHasAProvingBundle() throws Exception {
    ServerConfig config = ServerConfig.builder(dir).roomLog(false).serverName("it-1").build();
    try (SyncServer server = SyncServer.start(config)) {
      Api api = new Api(server.baseUri(), server.adminToken());
      URI base = server.baseUri();
      TestDevice d = TestDevice.create("room-log-dev");
      api.enroll(d, server.enrollToken());
      List<DanmakuRecord> records = new ArrayList<>();
      for (int i = 0; i < 299; i++) {
        records.add(d.record(ROOM, "u" + i, "message " + i));
      }
      records.add(d.record(ROOM, "u299", "held: see https://example.com/x"));
      Api.Reply sent = api.batch(d, d.batch(records.toArray(new DanmakuRecord[0])));
      assertEquals(200, sent.status(), sent.toString());
      BatchResponse batch = sent.as(BatchResponse.class);

      JsonNode keys = api.get("/v1/server/keys").json();
      NoteVerifier logKey = NoteVerifier.parse(keys.path("logVerifierKey").asText());
      CosignatureVerifier cosigner =
          CosignatureVerifier.parse(keys.path("cosignerVerifierKey").asText());
      assertEquals("danmaku-ledger/server-log/it-1", logKey.name());
      assertEquals("danmaku-ledger/server/it-1", cosigner.name());
      assertEquals(server.logVerifierKey(), logKey.verifierKey());
      assertEquals(server.cosignerVerifierKey(), cosigner.verifierKey());

      // the receipt is a cosignature/v1 line (and the first key's note signature for older agents)
      Cosignatures.Cosigned cosigned =
          Cosignatures.open(batch.receipt(), DeviceLog.origin(d.id), cosigner);
      assertEquals(300, cosigned.checkpoint().size());
      SignedNote.open(batch.receipt(), NoteVerifier.parse(server.serverVerifierKey()));

      // before integration the number exists but is not in the log yet
      Api.Reply early = api.get("/v1/rooms/" + ROOM + "/messages/1/bundle");
      assertEquals(409, early.status(), early.toString());
      assertEquals("not-integrated", early.code());
      assertEquals("1", early.retryAfter());
      assertEquals(404, api.get("/v1/rooms/" + ROOM + "/log/checkpoint").status());

      assertEquals(300, server.integrateNow());

      HttpResponse<byte[]> cpReply = raw(base, RoomLog.tilesPrefix(ROOM) + "checkpoint");
      assertEquals(200, cpReply.statusCode());
      assertEquals(
          "text/plain;charset=utf-8",
          cpReply.headers().firstValue("Content-Type").orElse("").replace(" ", ""));
      assertEquals("no-cache", cpReply.headers().firstValue("Cache-Control").orElse(""));
      String note = new String(cpReply.body(), StandardCharsets.UTF_8);
      Checkpoint cp = Checkpoints.open(note, RoomLog.origin(ROOM), logKey);
      assertEquals(300, cp.size());

      // mirror the served bytes and audit them with tlog verify-room
      Files.writeString(mirror.resolve("checkpoint"), note, StandardCharsets.UTF_8);
      for (TileId id : Tiles.forSize(cp.size())) {
        mirrorOne(base, id.path(), id.isFull());
        if (id.level() == 0) {
          mirrorOne(base, id.entriesPath(), id.isFull());
        }
      }
      assertEquals(0, verifyRoom(logKey.verifierKey(), mirror), "tlog verify-room");

      hostilePathsAreRefused(api);
      bundleProvesTheMessage(api, d, records.get(0), 1, cp, note, batch.receipt());
      tlogVerifiesTheServedBundleOffline(base, d, 42);
      assertEquals("unauthenticated", api.get("/v1/rooms/" + ROOM + "/messages/300/bundle").code());
      Api.Reply held = api.admin("/v1/rooms/" + ROOM + "/messages/300/bundle");
      assertEquals(200, held.status(), held.toString());
      assertEquals(300, held.json().path("seq").asLong());
      assertEquals("not-found", api.get("/v1/rooms/" + ROOM + "/messages/301/bundle").code());
      assertEquals(400, api.get("/v1/rooms/" + ROOM + "/messages/0/bundle").status());
      assertEquals(400, api.get("/v1/rooms/" + ROOM + "/messages/x/bundle").status());
    }
  }

  private void mirrorOne(URI base, String path, boolean full) throws Exception {
    HttpResponse<byte[]> r = raw(base, RoomLog.tilesPrefix(ROOM) + path);
    assertEquals(200, r.statusCode(), path);
    assertEquals("application/octet-stream", r.headers().firstValue("Content-Type").orElse(""));
    assertEquals(
        full ? "public, max-age=31536000, immutable" : "public, max-age=1",
        r.headers().firstValue("Cache-Control").orElse(""),
        path);
    Path file = mirror.resolve(path);
    Files.createDirectories(file.getParent());
    Files.write(file, r.body());
  }

  private static int verifyRoom(String vkey, Path mirror) throws Exception {
    Tlog run = tlog("verify-room", "--vkey", vkey, mirror.toString());
    assertTrue(run.exit() != 0 || run.output().contains("300"), run.output());
    return run.exit();
  }

  /**
   * The bundle and server keys exactly as served, saved to files and checked by {@code tlog
   * verify-bundle} with no network; the same bundle with one byte of its record changed fails.
   */
  private void tlogVerifiesTheServedBundleOffline(URI base, TestDevice d, long seq)
      throws Exception {
    HttpResponse<byte[]> keys = raw(base, "/v1/server/keys");
    assertEquals(200, keys.statusCode());
    Path keysFile = mirror.resolve("server-keys.json");
    Files.write(keysFile, keys.body());
    HttpResponse<byte[]> bundle = raw(base, "/v1/rooms/" + ROOM + "/messages/" + seq + "/bundle");
    assertEquals(200, bundle.statusCode());
    Path bundleFile = mirror.resolve("bundle-" + seq + ".json");
    Files.write(bundleFile, bundle.body());
    String vkey = d.signer.verifierKey();

    Tlog ok =
        tlog(
            "verify-bundle",
            "--server-keys",
            keysFile.toString(),
            "--device-vkey",
            vkey,
            bundleFile.toString());
    assertEquals(0, ok.exit(), ok.output());
    assertTrue(ok.output().lines().filter(l -> l.startsWith("ok ")).count() >= 5, ok.output());
    assertTrue(ok.output().contains(ROOM), ok.output());

    JsonNode b = JSON.readTree(bundle.body());
    byte[] record = Base64.getDecoder().decode(b.path("record").asText());
    record[record.length - 1] ^= 1;
    ((ObjectNode) b).put("record", Base64.getEncoder().encodeToString(record));
    Path tampered = mirror.resolve("bundle-" + seq + "-tampered.json");
    Files.write(tampered, JSON.writeValueAsBytes(b));
    Tlog bad =
        tlog(
            "verify-bundle",
            "--server-keys",
            keysFile.toString(),
            "--device-vkey",
            vkey,
            tampered.toString());
    assertEquals(1, bad.exit(), bad.output());
  }

  /** What one run of the tlog command line printed and its exit status. */
  private record Tlog(int exit, String output) {}

  /** Runs the tlog command line ({@code bin/tlog}'s main class) in its own JVM. */
  private static Tlog tlog(String... args) throws Exception {
    Path java = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> cmd = new ArrayList<>();
    cmd.add(java.toString());
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add("dev.danmakuledger.merkle.cli.Tlog");
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    p.getInputStream().transferTo(out);
    assertTrue(p.waitFor(120, TimeUnit.SECONDS), "tlog " + args[0] + " did not finish");
    return new Tlog(p.exitValue(), out.toString(StandardCharsets.UTF_8));
  }

  private static void hostilePathsAreRefused(Api api) {
    String prefix = RoomLog.tilesPrefix(ROOM);
    for (String bad :
        List.of(
            "tile/0/1",
            "tile/0/0000",
            "tile/0/000.p/0",
            "tile/0/000.p/256",
            "tile/0/000.p/044",
            "tile/0/x000/001",
            "tile/8/000",
            "tile/-1/000",
            "tile/entries/x1/000",
            "tile/0/x999/x999/x999/x999/x999/x999/x999/000",
            "tile/0/" + "x000/".repeat(40) + "001")) {
      Api.Reply r = api.get(prefix + bad);
      assertEquals(400, r.status(), bad + " -> " + r);
      assertEquals(Problem.MEDIA_TYPE, r.contentType(), bad);
      assertEquals("invalid-field", r.code(), bad);
    }
    for (String absent :
        List.of(
            "tile/0/002",
            "tile/1/000",
            "tile/entries/005",
            "nonsense",
            "tile/0/%2e%2e/%2e%2e/checkpoint",
            "tile/entries/000.p/")) {
      Api.Reply r = api.get(prefix + absent);
      assertEquals(404, r.status(), absent + " -> " + r);
      assertEquals("not-found", r.code(), absent);
    }
    assertEquals(400, api.get("/v1/rooms/bad%20room/log/checkpoint").status());
    assertEquals(404, api.get("/v1/rooms/no-such-room/log/checkpoint").status());
  }

  private static void bundleProvesTheMessage(
      Api api,
      TestDevice d,
      DanmakuRecord record,
      long seq,
      Checkpoint cp,
      String note,
      String receipt)
      throws Exception {
    Api.Reply r = api.get("/v1/rooms/" + ROOM + "/messages/" + seq + "/bundle");
    assertEquals(200, r.status(), r.toString());
    JsonNode b = r.json();
    assertEquals("danmaku-ledger-audit-bundle/v1", b.path("format").asText());
    assertEquals(ROOM, b.path("room").asText());
    assertEquals(seq, b.path("seq").asLong());
    byte[] entry = Base64.getDecoder().decode(b.path("entry").asText());
    MessageEntry m = (MessageEntry) RoomLogEntry.parse(entry);
    assertEquals(seq, m.seq());
    assertEquals(d.id, m.deviceId());
    assertEquals(record.index(), m.deviceIndex());
    assertEquals(record.key(), m.idempotencyKey());
    assertEquals(note, b.path("roomCheckpoint").asText());
    JsonNode ri = b.path("roomInclusion");
    assertEquals(seq - 1, ri.path("index").asLong());
    assertEquals(cp.size(), ri.path("size").asLong());
    InclusionProof.verify(
        seq - 1, cp.size(), Rfc6962.leafHash(entry), hexes(ri.path("proofHex")), cp.root());
    assertEquals(d.id, b.path("deviceId").asText());
    byte[] canonical = Base64.getDecoder().decode(b.path("record").asText());
    assertArrayEquals(record.canonicalBytes(), canonical);
    assertEquals(HEX.formatHex(Rfc6962.leafHash(canonical)), m.deviceLeafHashHex());
    JsonNode di = b.path("deviceInclusion");
    assertEquals(record.index(), di.path("index").asLong());
    assertEquals(d.size(), di.path("size").asLong());
    InclusionProof.verify(
        record.index(),
        d.size(),
        Rfc6962.leafHash(canonical),
        hexes(di.path("proofHex")),
        d.root());
    assertEquals(receipt, b.path("deviceCheckpoint").asText());
  }

  private static List<byte[]> hexes(JsonNode array) {
    List<byte[]> out = new ArrayList<>();
    array.forEach(n -> out.add(HEX.parseHex(n.asText())));
    return out;
  }
}
