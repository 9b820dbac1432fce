package dev.danmakuledger.protocol.wire.admin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class AdminJsonTest {
  private static final ObjectMapper JSON = Json.mapper();

  static Stream<Object> samples() {
    DeviceSummary device =
        new DeviceSummary(
            "kiosk-01",
            DeviceSummary.Status.VERIFIED,
            10,
            12,
            "ab",
            "2026-11-30T05:00:00Z",
            "2026-11-30T05:00:01Z",
            -40L,
            2,
            "2026-11-30T05:00:02Z");
    RoomSummary room = new RoomSummary("live.main", 100, 1, 95, 2, 2, 12.5);
    ReviewItem item =
        new ReviewItem(
            "123", "live.main", 7, "d:u:1732953600000:0123456789abcdef", "d", "u", "txt", 0, 3);
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("verifiedSize", 12);
    data.put("root", null);
    AdminEvent alert =
        new AdminEvent(
            AdminEvent.Type.ALERT,
            AdminEvent.Severity.CRITICAL,
            "kiosk-01",
            null,
            "fork detected",
            "2026-11-30T05:00:00Z",
            data);
    return Stream.of(
        new Overview(
            5,
            Map.of("CONFIRMED", 90L, "DUPLICATE", 10L),
            new DuplicateLayers(4, 5, 1),
            1,
            0,
            0,
            Map.of("text-too-long", 2L),
            1,
            3,
            2,
            1.25,
            "2026-11-30T05:00:00Z"),
        device,
        new DeviceList(List.of(device)),
        new DeviceKey("kiosk-01", "kiosk-01+01020304+AQ=="),
        room,
        new RoomList(List.of(room)),
        new RoomSummary("live.side", 9, 0, 9, 0, 0, 1.5, new RoomSummary.Relay(3, 120)),
        new RoomList(
            List.of(
                room,
                new RoomSummary("live.side", 9, 0, 9, 0, 0, 1.5, new RoomSummary.Relay(3, 120))),
            new RelayLag("danmaku.confirmed", 4, 3, true, 3, 120)),
        item,
        new ReviewQueue(List.of(item)),
        new ReviewDecision(ReviewDecision.APPROVE, 3, null),
        new ReviewDecision(ReviewDecision.REJECT, 3, "spam"),
        alert,
        new AlertList(List.of(alert)),
        new InstanceList(
            List.of(
                new InstanceList.Instance(
                    "a1b2",
                    "http://10.0.0.5:8080",
                    "0.1.0",
                    "2026-11-30T05:00:00Z",
                    "2026-11-30T05:00:05Z",
                    InstanceList.Status.UP,
                    12.5,
                    3))));
  }

  @Test
  void instanceRejectsNegativeAndUnknownValues() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new InstanceList.Instance(
                "a", "http://h", "v", "t", "t", InstanceList.Status.UP, Double.NaN, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new InstanceList.Instance("a", "http://h", "v", "t", "t", null, 0, 0));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new InstanceList.Instance(
                "a", "http://h", "v", "t", "t", InstanceList.Status.UP, 0, -1));
    assertThrows(
        JacksonException.class,
        () ->
            JSON.readValue(
                "{\"id\":\"a\",\"address\":\"h\",\"version\":\"v\",\"startedAt\":\"t\","
                    + "\"heartbeatAt\":\"t\",\"status\":\"SIDEWAYS\"}",
                InstanceList.Instance.class));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void roundTripsThroughJson(Object dto) throws Exception {
    String text = JSON.writeValueAsString(dto);
    assertEquals(dto, JSON.readValue(text, dto.getClass()), text);
  }

  @Test
  void roomsOfAServerWithoutARelayHaveNoRelayLag() throws Exception {
    RoomList list =
        JSON.readValue(
            "{\"rooms\":[{\"room\":\"r\",\"highSeq\":1,\"tombstones\":0,\"confirmed\":1,"
                + "\"pending\":0,\"rejected\":0,\"messagesPerMinute\":0.5}]}",
            RoomList.class);
    assertEquals(null, list.relay());
    assertEquals(null, list.rooms().get(0).relay());
  }

  @Test
  void relayLagRefusesNegativeCountsAndMoreReportingShardsThanShards() {
    assertThrows(IllegalArgumentException.class, () -> new RoomSummary.Relay(-1, 0));
    assertThrows(IllegalArgumentException.class, () -> new RoomSummary.Relay(0, -1));
    assertThrows(IllegalArgumentException.class, () -> new RelayLag("t", 4, 5, true, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new RelayLag("t", 4, 4, true, -1, 0));
    assertThrows(IllegalArgumentException.class, () -> new RelayLag(null, 4, 4, true, 0, 0));
    assertEquals(4, new RelayLag("t", 4, 4, false, 0, 0).reporting());
  }

  @Test
  void deviceSummaryOfAnOlderServerHasNoBadSignatureAttempts() throws Exception {
    String old =
        "{\"deviceId\":\"kiosk-01\",\"status\":\"VERIFIED\",\"verifiedSize\":1,"
            + "\"claimedSize\":1,\"rootHex\":null,\"lastCheckpointAt\":null,"
            + "\"lastReceiptAt\":null,\"clockSkewMs\":null,\"pendingEstimate\":0,"
            + "\"lastSeenAt\":null}";
    assertEquals(0L, JSON.readValue(old, DeviceSummary.class).badSignatureAttempts());
    DeviceSummary counted =
        new DeviceSummary(
            "kiosk-01", DeviceSummary.Status.VERIFIED, 1, 1, null, null, null, null, 0, null, 7L);
    String json = JSON.writeValueAsString(counted);
    assertTrue(json.contains("\"badSignatureAttempts\":7"), json);
    assertEquals(counted, JSON.readValue(json, DeviceSummary.class));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new DeviceSummary(
                "k", DeviceSummary.Status.VERIFIED, 1, 1, null, null, null, null, 0, null, -1L));
  }

  @Test
  void deviceSummaryCarriesTheReportedQueueOrNothing() throws Exception {
    DeviceQueue q =
        new DeviceQueue(720_000L, 5_000L, "bad-proof", true, "2026-11-30T05:00:00Z", false);
    DeviceSummary s =
        new DeviceSummary(
            "kiosk-01",
            DeviceSummary.Status.VERIFIED,
            1,
            1,
            null,
            null,
            null,
            null,
            0,
            null,
            0L,
            q);
    String json = JSON.writeValueAsString(s);
    assertTrue(
        json.contains(
            "\"queue\":{\"oldestUnsyncedAgeMs\":720000,\"lastAttemptAgeMs\":5000,"
                + "\"lastAttemptOutcome\":\"bad-proof\",\"stuck\":true,"
                + "\"reportedAt\":\"2026-11-30T05:00:00Z\",\"signed\":false}"),
        json);
    assertEquals(s, JSON.readValue(json, DeviceSummary.class));
    assertTrue(q.unsigned(), "an unsigned report of an older agent");
    String olderServer = json.replace(",\"signed\":false", "");
    DeviceQueue unknown = JSON.readValue(olderServer, DeviceSummary.class).queue();
    assertEquals(null, unknown.signed(), "a server before signed reports: unknown");
    assertFalse(unknown.unsigned(), "not shown as unsigned");
    String older = json.substring(0, json.indexOf(",\"queue\"")) + "}";
    assertEquals(null, JSON.readValue(older, DeviceSummary.class).queue(), "unknown, not empty");
  }

  @Test
  void hostileDeviceQueueIsRefused() {
    List<Runnable> broken = new ArrayList<>();
    broken.add(() -> new DeviceQueue(-1L, null, null, false, "t"));
    broken.add(() -> new DeviceQueue(null, -1L, null, false, "t"));
    broken.add(() -> new DeviceQueue(null, null, "NOT A TOKEN", false, "t"));
    broken.add(() -> new DeviceQueue(null, null, "x".repeat(49), false, "t"));
    broken.add(() -> new DeviceQueue(null, null, null, false, null));
    for (int i = 0; i < broken.size(); i++) {
      assertThrows(IllegalArgumentException.class, broken.get(i)::run, "case " + i);
    }
    assertThrows(
        JacksonException.class,
        () ->
            JSON.readValue(
                "{\"oldestUnsyncedAgeMs\":1,\"lastAttemptAgeMs\":1,\"lastAttemptOutcome\":\"ok\","
                    + "\"stuck\":false,\"reportedAt\":\"t\",\"extra\":1}",
                DeviceQueue.class));
  }

  @Test
  void reviewDecisionMustBeApproveOrReject() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new ReviewDecision("approve", 1, null));
    assertEquals("decision: got \"approve\", want APPROVE or REJECT", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> new ReviewDecision(null, 1, null));
    assertThrows(IllegalArgumentException.class, () -> new ReviewDecision("REJECT", -1, "x"));
    assertThrows(
        JacksonException.class,
        () -> JSON.readValue("{\"decision\":\"MAYBE\",\"version\":1}", ReviewDecision.class));
  }

  @Test
  void eventDataMayBeAbsentAndKeepsNullValues() throws Exception {
    AdminEvent e =
        JSON.readValue(
            "{\"type\":\"DEVICE\",\"severity\":\"INFO\",\"message\":\"m\",\"at\":\"t\"}",
            AdminEvent.class);
    assertEquals(Map.of(), e.data());
    assertEquals(null, e.deviceId());
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("x", null);
    assertTrue(
        new AdminEvent(AdminEvent.Type.ALERT, AdminEvent.Severity.WARN, null, null, "m", "t", data)
            .data()
            .containsKey("x"));
  }

  @Test
  void overviewRequiresItsMaps() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new Overview(
                0, null, new DuplicateLayers(0, 0, 0), 0, 0, 0, Map.of(), 0, 0, 0, 0, "t"));
    assertThrows(IllegalArgumentException.class, () -> new DuplicateLayers(0, -1, 0));
  }
}
