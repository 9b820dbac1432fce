package dev.danmakuledger.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.record.InvalidRecordException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class WireJsonTest {
  private static final ObjectMapper JSON = Json.mapper();

  static final DanmakuRecord RECORD =
      new DanmakuRecord(
          IdempotencyKey.parse("kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff"),
          "kiosk-01",
          "live.main",
          "alice",
          "弹幕 ok",
          1500L,
          1,
          0xFFFFFF,
          25,
          7,
          3);

  static Stream<Object> samples() {
    RecordOutcome dup =
        new RecordOutcome(
            3, RECORD.key().toString(), Outcome.DUPLICATE, 41L, "123456789", "CONFIRMED", null);
    return Stream.of(
        new EnrollRequest("kiosk-01", "AAAA", "token"),
        new EnrollRequest("kiosk-01", "AAAA", null),
        new EnrollResponse("kiosk-01", "danmaku-ledger/device/kiosk-01", "srv+01020304+AQ=="),
        WireRecord.of(RECORD),
        new BatchRequest(3, List.of(WireRecord.of(RECORD)), "note", new BatchMetadata(10, 2, 1, 1)),
        new BatchRequest(0, List.of(), "note", null),
        new BatchMetadata(0, 0, 0, 0),
        dup,
        new BatchResponse("kiosk-01", 4, "ab", List.of(dup), "receipt"),
        new LogState("kiosk-01", 0, null, null, null, LogState.Status.VERIFIED),
        new AcksResponse("kiosk-01", 3, 4, List.of(dup)),
        new RoomMessage(
            "live.main",
            41,
            "123456789",
            RECORD.key().toString(),
            "kiosk-01",
            "alice",
            "弹幕 ok",
            1500L,
            1,
            0xFFFFFF,
            25,
            RoomMessage.Status.CONFIRMED,
            3L),
        new RoomMessage(
            "live.main",
            42,
            null,
            null,
            null,
            null,
            null,
            null,
            0,
            0,
            0,
            RoomMessage.Status.TOMBSTONE,
            null),
        new RoomPage(List.of(), 43),
        new InclusionProofResponse(
            "kiosk-01", 3, 4, "aa", List.of("bb", "cc"), "dd", "note", "AQID"),
        new InclusionProofResponse("kiosk-01", 3, 4, "aa", List.of("bb"), "dd", null, null),
        new ConsistencyProofResponse("kiosk-01", 2, 4, List.of("bb"), "aa", "cc"));
  }

  @ParameterizedTest
  @MethodSource("samples")
  void roundTripsThroughJson(Object dto) throws Exception {
    String text = JSON.writeValueAsString(dto);
    assertEquals(dto, JSON.readValue(text, dto.getClass()), text);
  }

  @Test
  void wireRecordCarriesTheCanonicalBytes() {
    WireRecord w = WireRecord.of(RECORD);
    assertEquals(3, w.index());
    assertArrayEquals(RECORD.canonicalBytes(), w.canonicalBytes());
    assertEquals(RECORD, w.toRecord());
  }

  @Test
  void inclusionProofCarriesTheLeafRecordAndStillReadsWithoutIt() throws Exception {
    String canonical = WireRecord.of(RECORD).canonical();
    InclusionProofResponse p =
        new InclusionProofResponse("kiosk-01", 3, 4, "aa", List.of(), "dd", null, canonical);
    assertArrayEquals(RECORD.canonicalBytes(), p.canonicalBytes());
    String older =
        "{\"deviceId\":\"kiosk-01\",\"index\":3,\"size\":4,\"leafHashHex\":\"aa\","
            + "\"proofHex\":[],\"rootHex\":\"dd\",\"checkpoint\":null}";
    InclusionProofResponse read = JSON.readValue(older, InclusionProofResponse.class);
    assertEquals(null, read.canonical());
    assertEquals(null, read.canonicalBytes());
    assertThrows(
        JacksonException.class,
        () ->
            JSON.readValue(
                older.replace("null}", "null,\"canonical\":\"%%%\"}"),
                InclusionProofResponse.class));
  }

  @Test
  void wireRecordWithBadBase64OrBadBytesFailsTyped() {
    assertThrows(IllegalArgumentException.class, () -> new WireRecord(0, "not base64!").toRecord());
    assertThrows(InvalidRecordException.class, () -> new WireRecord(0, "AgAA").toRecord());
  }

  @Test
  void requiredMembersAreChecked() {
    List<Runnable> broken = new ArrayList<>();
    broken.add(() -> new EnrollRequest(null, "AAAA", "t"));
    broken.add(() -> new EnrollResponse("d", null, "k"));
    broken.add(() -> new WireRecord(-1, "AQ=="));
    broken.add(() -> new BatchRequest(0, null, "note", null));
    broken.add(() -> new BatchMetadata(-1, 0, 0, 0));
    broken.add(() -> new BatchMetadata(0, 0, 0, 0, -1L));
    broken.add(() -> new RecordOutcome(0, null, null, null, null, null, null));
    broken.add(() -> new BatchResponse("d", 0, null, null, null));
    broken.add(() -> new LogState("d", 0, null, null, null, null));
    broken.add(() -> new AcksResponse("d", -1, 0, List.of()));
    broken.add(
        () ->
            new RoomMessage(
                null,
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                0,
                0,
                0,
                RoomMessage.Status.PENDING,
                null));
    broken.add(() -> new RoomPage(List.of(), -1));
    broken.add(() -> new InclusionProofResponse("d", 0, 1, "aa", null, "bb", null, null));
    broken.add(() -> new InclusionProofResponse("d", 0, 1, "aa", List.of(), "bb", null, "no!"));
    broken.add(() -> new ConsistencyProofResponse("d", 0, 1, List.of(), null, "bb"));
    for (int i = 0; i < broken.size(); i++) {
      IllegalArgumentException e =
          assertThrows(IllegalArgumentException.class, broken.get(i)::run, "case " + i);
      assertTrue(e.getMessage().contains("got"), e.getMessage());
    }
  }

  @Test
  void listsAreCopiedAndImmutable() {
    List<WireRecord> records = new ArrayList<>(List.of(WireRecord.of(RECORD)));
    BatchRequest r = new BatchRequest(3, records, "note", null);
    records.clear();
    assertEquals(1, r.records().size());
    assertThrows(UnsupportedOperationException.class, () -> r.records().clear());
  }

  @Test
  void outcomeNamesAreTheWireValues() throws Exception {
    assertEquals("\"DUPLICATE\"", JSON.writeValueAsString(Outcome.DUPLICATE));
    assertThrows(JacksonException.class, () -> JSON.readValue("\"duplicate\"", Outcome.class));
  }
}
