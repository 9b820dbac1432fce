package dev.danmakuledger.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class JsonTest {
  private final ObjectMapper json = Json.mapper();

  private static final String GOOD =
      "{\"oldSize\":3,\"records\":[{\"index\":3,\"canonical\":\"AQ==\"}],"
          + "\"checkpoint\":\"note\",\"metadata\":null}";

  @Test
  void readsAWellFormedRequest() throws Exception {
    BatchRequest r = json.readValue(GOOD, BatchRequest.class);
    assertEquals(new BatchRequest(3, List.of(new WireRecord(3, "AQ==")), "note", null), r);
  }

  @Test
  void writesRecordComponentsInDeclarationOrder() throws Exception {
    assertEquals(
        "{\"bloomChecks\":4,\"bloomMaybe\":3,\"edgeDuplicates\":2,\"bloomFalsePositives\":1,"
            + "\"deviceClockMillis\":9}",
        json.writeValueAsString(new BatchMetadata(4, 3, 2, 1).sentAt(9)));
    assertEquals(
        "{\"index\":0,\"idempotencyKey\":null,\"outcome\":\"REJECTED\",\"seq\":null,"
            + "\"messageId\":null,\"originalStatus\":null,\"reason\":\"bad text\"}",
        json.writeValueAsString(
            new RecordOutcome(0, null, Outcome.REJECTED, null, null, null, "bad text")));
  }

  @Test
  void sortsMapEntriesByKey() throws Exception {
    Map<String, Long> unordered = new java.util.HashMap<>();
    for (String k : new String[] {"zeta", "alpha", "mu", "beta"}) {
      unordered.put(k, 1L);
    }
    assertEquals(
        "{\"alpha\":1,\"beta\":1,\"mu\":1,\"zeta\":1}", json.writeValueAsString(unordered));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "unknown-field|{\"oldSize\":3,\"records\":[],\"checkpoint\":\"n\",\"extra\":1}",
        "missing-primitive|{\"records\":[],\"checkpoint\":\"n\"}",
        "null-primitive|{\"oldSize\":null,\"records\":[],\"checkpoint\":\"n\"}",
        "string-for-number|{\"oldSize\":\"3\",\"records\":[],\"checkpoint\":\"n\"}",
        "float-for-integer|{\"oldSize\":3.5,\"records\":[],\"checkpoint\":\"n\"}",
        "number-for-string|{\"oldSize\":3,\"records\":[],\"checkpoint\":5}",
        "boolean-for-string|{\"oldSize\":3,\"records\":[],\"checkpoint\":true}",
        "object-for-list|{\"oldSize\":3,\"records\":{},\"checkpoint\":\"n\"}",
        "missing-required-list|{\"oldSize\":3,\"checkpoint\":\"n\"}",
        "missing-required-string|{\"oldSize\":3,\"records\":[]}",
        "null-list-element|{\"oldSize\":3,\"records\":[null],\"checkpoint\":\"n\"}",
        "negative-size|{\"oldSize\":-1,\"records\":[],\"checkpoint\":\"n\"}",
        "duplicate-key|{\"oldSize\":3,\"oldSize\":4,\"records\":[],\"checkpoint\":\"n\"}",
        "trailing-tokens|{\"oldSize\":3,\"records\":[],\"checkpoint\":\"n\"} {}",
        "truncated|{\"oldSize\":3,\"records\":[",
        "not-an-object|[1,2,3]",
        "number-too-large|{\"oldSize\":99999999999999999999,\"records\":[],\"checkpoint\":\"n\"}",
        "nested-unknown-field|{\"oldSize\":3,\"records\":[{\"index\":3,\"canonical\":\"AQ==\",\"x\":0}],\"checkpoint\":\"n\"}",
      })
  void rejectsMalformedRequestsWithAJacksonException(String name, String body) {
    assertThrows(JacksonException.class, () -> json.readValue(body, BatchRequest.class), name);
  }

  @Test
  void rejectsUnknownEnumConstantsAndOrdinals() {
    assertThrows(
        JacksonException.class,
        () -> json.readValue("{\"index\":0,\"outcome\":\"MAYBE\"}", RecordOutcome.class));
    assertThrows(
        JacksonException.class,
        () -> json.readValue("{\"index\":0,\"outcome\":1}", RecordOutcome.class));
  }

  @Test
  void optionalMembersMayBeOmitted() throws Exception {
    RecordOutcome r = json.readValue("{\"index\":5,\"outcome\":\"PENDING\"}", RecordOutcome.class);
    assertEquals(new RecordOutcome(5, null, Outcome.PENDING, null, null, null, null), r);
  }

  @Test
  void constructorMessagesReachTheCaller() {
    JacksonException e =
        assertThrows(
            JacksonException.class,
            () -> json.readValue("{\"oldSize\":3,\"records\":[]}", BatchRequest.class));
    assertTrue(e.getMessage().contains("checkpoint: got null, want a value"), e.getMessage());
  }

  @Test
  void mappersAreIndependent() {
    ObjectMapper a = Json.mapper();
    a.disable(com.fasterxml.jackson.databind.DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    assertThrows(
        JacksonException.class,
        () ->
            Json.mapper()
                .readValue(
                    "{\"oldSize\":3,\"records\":[],\"checkpoint\":\"n\",\"extra\":1}",
                    BatchRequest.class));
  }
}
