package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.merkle.tiles.EntryBundle;
import dev.danmakuledger.merkle.tiles.Tiles;
import dev.danmakuledger.protocol.clock.Hlc;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.Blind;
import dev.danmakuledger.protocol.record.CanonicalRecord;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.room.RoomLog;
import dev.danmakuledger.protocol.testing.HeldTextSearch;
import dev.danmakuledger.testkit.TestDevice;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the public room log reveals about held messages (docs/security.md, "What the room log
 * reveals"): the attack of {@link HeldTextSearch} run against the entry bundle a live server serves
 * anonymously. A held version 1 record's text is recovered from its published leaf hash; a held
 * version 2 record's is not, and its bytes (and so its blind) are served only with the admin token,
 * while a CONFIRMED version 2 record's bytes are public.
 */
final class HeldTextIT {
  static final String ROOM = "held-room";
  static final String HELD = "see https://evil.example";

  @TempDir Path dir;

  /**
   * {@code r} as live chat with the default mode, colour and size, captured {@code afterKeyMs}
   * after its key's time, as an agent's clock would stamp it.
   */
  static DanmakuRecord capturedAfterKey(DanmakuRecord r, long afterKeyMs) {
    return new DanmakuRecord(
        r.key(),
        r.deviceId(),
        r.room(),
        r.user(),
        r.text(),
        null,
        1,
        0xFFFFFF,
        25,
        new Hlc(r.key().unixMillis() + afterKeyMs, 0).pack(),
        r.index());
  }

  @Test
  void aHeldTextIsRecoveredFromAVersion1LeafButNotFromAVersion2Leaf() throws Exception {
    try (SyncServer server = SyncServer.start(ServerConfig.builder(dir).roomLog(false).build())) {
      Api api = new Api(server.baseUri(), server.adminToken());
      TestDevice d = api.enrollNew(server.enrollToken());
      SecureRandom random = new SecureRandom();
      DanmakuRecord v1 = capturedAfterKey(d.record(ROOM, "bob", HELD), 1_234);
      DanmakuRecord v2 =
          capturedAfterKey(d.record(ROOM, "bob", HELD), 2_345).withBlind(Blind.random(random));
      DanmakuRecord shown =
          capturedAfterKey(d.record(ROOM, "amy", "hello"), 10).withBlind(Blind.random(random));
      api.sync(d, d.batch(v1, v2, shown));
      assertEquals(3, server.integrateNow());

      List<String[]> entries = entries(server.baseUri(), 3);
      List<String> dictionary = new ArrayList<>();
      for (int i = 0; i < 9; i++) {
        dictionary.add("see https://site" + i + ".example");
      }
      dictionary.add(HELD);
      List<HeldTextSearch.Result> found = new ArrayList<>();
      for (int seq = 1; seq <= 2; seq++) {
        String[] e = entries.get(seq - 1);
        assertEquals("M", e[2], "a message entry: " + String.join(" ", e));
        assertEquals(
            "PENDING",
            api.get("/v1/rooms/" + ROOM + "/messages/" + seq).json().get("status").asText());
        found.add(
            HeldTextSearch.search(
                HexFormat.of().parseHex(e[6]),
                IdempotencyKey.parse(e[7]),
                ROOM,
                Long.parseLong(e[5]),
                dictionary,
                10_000));
      }
      assertEquals(HELD, found.get(0).text().orElse(null), "version 1: the held text leaks");
      assertTrue(found.get(1).text().isEmpty(), "version 2: nothing is confirmed");
      assertEquals(10L * 10_001, found.get(1).guesses());

      String proof = "/v1/devices/" + d.id + "/proofs/inclusion?index=" + v2.index();
      assertEquals(401, api.get(proof).status(), "a held record's bytes need the admin token");
      assertEquals(401, api.get("/v1/rooms/" + ROOM + "/messages/2/bundle").status());
      JsonNode admin = api.admin(proof).json();
      DanmakuRecord served =
          CanonicalRecord.decode(Base64.getDecoder().decode(admin.get("canonical").asText()));
      assertEquals(v2, served, "operators get the version 2 bytes, blind included");
      JsonNode confirmed =
          api.get("/v1/devices/" + d.id + "/proofs/inclusion?index=" + shown.index()).json();
      assertEquals(
          shown,
          CanonicalRecord.decode(Base64.getDecoder().decode(confirmed.get("canonical").asText())),
          "a CONFIRMED record's bytes are public");
    }
  }

  /** The entries of the room log's first entry bundle, split into their fields. */
  static List<String[]> entries(URI base, int size) throws Exception {
    String path = RoomLog.tilesPrefix(ROOM) + Tiles.tileAt(size, 0, 0).entriesPath();
    HttpResponse<byte[]> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(base + path)).build(),
                HttpResponse.BodyHandlers.ofByteArray());
    assertEquals(200, r.statusCode(), path);
    List<String[]> out = new ArrayList<>();
    for (byte[] e : EntryBundle.decode(r.body(), size)) {
      out.add(new String(e, StandardCharsets.UTF_8).strip().split(" "));
    }
    return out;
  }
}
