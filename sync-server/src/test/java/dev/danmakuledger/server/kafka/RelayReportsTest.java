package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.admin.RelayLag;
import dev.danmakuledger.protocol.wire.admin.RoomSummary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shards' lag reports as every instance reads them back from Redis (docs/kafka.md, "Lag"). */
class RelayReportsTest {
  private static final ObjectMapper JSON = Json.mapper();
  private static final KafkaRelayConfig CONFIG = KafkaRelayConfig.of("k:9092", "t");
  private static final long NOW = 1_000_000;

  /** A room name of {@code shard}. */
  private static String roomOf(int shard, int n) {
    for (int i = 0; ; i++) {
      String room = "room-" + n + "-" + i;
      if (CONFIG.shardOf(room) == shard) {
        return room;
      }
    }
  }

  private static String json(RelayReports.ShardReport r) throws Exception {
    return JSON.writeValueAsString(r);
  }

  private static RelayReports.ShardReport report(
      int shard, long at, boolean reachable, boolean complete, RoomLag... rooms) {
    long behind = 0;
    long max = 0;
    for (RoomLag l : rooms) {
      behind += l.records();
      max = Math.max(max, l.millis());
    }
    return new RelayReports.ShardReport(
        shard, "i-1", at, reachable, behind, max, List.of(rooms), complete);
  }

  @Test
  void sumsTheFreshReportsAndShowsEachRoomOfAReportingShard() throws Exception {
    String behind = roomOf(0, 1);
    String caughtUp = roomOf(0, 2);
    String truncated = roomOf(1, 3);
    String orphan = roomOf(2, 4);
    Map<String, String> hash = new HashMap<>();
    hash.put("0", json(report(0, NOW - 500, true, true, new RoomLag(behind, 0, 7, 300))));
    hash.put("1", json(report(1, NOW - 100, true, false, new RoomLag(roomOf(1, 5), 1, 2, 900))));
    hash.put("2", json(report(2, NOW - 10_001, true, true, new RoomLag(orphan, 2, 50, 9_000))));
    RelayReports.View v = RelayReports.view(CONFIG, hash, NOW);
    assertEquals(new RelayLag("t", 4, 2, true, 9, 900), v.summary());
    assertEquals(new RoomSummary.Relay(7, 300), v.room(behind));
    assertEquals(new RoomSummary.Relay(0, 0), v.room(caughtUp));
    assertNull(v.room(truncated), "a shard that named only its rooms most behind");
    assertNull(v.room(orphan), "a shard whose report is older than the lease");
    assertNull(v.room(roomOf(3, 6)), "a shard without a report");
  }

  @Test
  void oneOwnerThatCannotReachKafkaMakesTheRelayUnreachable() throws Exception {
    Map<String, String> hash =
        Map.of("0", json(report(0, NOW, true, true)), "3", json(report(3, NOW, false, true)));
    assertFalse(RelayReports.view(CONFIG, hash, NOW).summary().reachable());
  }

  @Test
  void malformedReportsAreSkipped() throws Exception {
    String good = json(report(1, NOW, true, true));
    assertEquals(1, RelayReports.parse("1", good, 4).shard());
    assertNull(RelayReports.parse("2", good, 4), "wrong-field");
    assertNull(RelayReports.parse("1", good, 1), "shard-out-of-range");
    assertNull(RelayReports.parse("1", "{not json", 4), "bad-json");
    assertNull(RelayReports.parse("1", null, 4), "no-value");
    assertNull(
        RelayReports.parse("1", good.replace("\"behind\":0", "\"behind\":-1"), 4),
        "negative-count");
    assertNull(RelayReports.parse("1", good.replace("}", ",\"extra\":1}"), 4), "unknown-member");
    String foreignRoom =
        json(report(1, NOW, true, true))
            .replace(
                "\"rooms\":[]",
                "\"rooms\":[{\"room\":\"r\",\"shard\":2,\"records\":1,\"millis\":1}]");
    assertNull(RelayReports.parse("1", foreignRoom, 4), "room-of-another-shard");
    String padded =
        good.replace("\"i-1\"", "\"" + "i".repeat(RelayReports.MAX_REPORT_CHARS) + "\"");
    assertNull(RelayReports.parse("1", padded, 4), "oversized");
    Map<String, String> hash = Map.of("1", "{not json", "x", good);
    assertEquals(0, RelayReports.view(CONFIG, hash, NOW).summary().reporting());
  }

  @Test
  void aReportNamesAtMostItsRoomsLimit() {
    List<RoomLag> rooms = new ArrayList<>();
    for (int i = 0; i <= RelayReports.ROOMS; i++) {
      rooms.add(new RoomLag(roomOf(0, i), 0, 1, 1));
    }
    assertThrows(
        IllegalArgumentException.class,
        () -> new RelayReports.ShardReport(0, "i", NOW, true, 1, 1, rooms, false));
    assertTrue(
        new RelayReports.ShardReport(
                    0, "i", NOW, true, 1, 1, rooms.subList(0, RelayReports.ROOMS), false)
                .rooms()
                .size()
            == RelayReports.ROOMS);
  }
}
