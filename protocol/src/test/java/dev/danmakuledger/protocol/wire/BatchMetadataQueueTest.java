package dev.danmakuledger.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The upload-queue members of {@link BatchMetadata} (docs/sync.md, "Queue state"). */
class BatchMetadataQueueTest {
  private final ObjectMapper json = Json.mapper();

  private static final String COUNTERS =
      "\"bloomChecks\":4,\"bloomMaybe\":3,\"edgeDuplicates\":2,\"bloomFalsePositives\":1";

  @Test
  void metadataOfOlderAgentsStillParsesWithoutQueueState() throws Exception {
    BatchMetadata m =
        json.readValue("{" + COUNTERS + ",\"deviceClockMillis\":9}", BatchMetadata.class);
    assertNull(m.oldestUnsyncedMillis());
    assertNull(m.lastAttempt());
    assertFalse(m.reportsQueue());
    BatchMetadata oldest = json.readValue("{" + COUNTERS + "}", BatchMetadata.class);
    assertEquals(new BatchMetadata(4, 3, 2, 1), oldest);
  }

  @Test
  void queueStateRoundTrips() throws Exception {
    BatchMetadata m =
        new BatchMetadata(4, 3, 2, 1)
            .sentAt(9_000)
            .withQueue(1_000L, new SyncAttempt(8_000, "sql-unavailable"));
    String text = json.writeValueAsString(m);
    assertEquals(
        "{"
            + COUNTERS
            + ",\"deviceClockMillis\":9000,\"oldestUnsyncedMillis\":1000,"
            + "\"lastAttempt\":{\"atMillis\":8000,\"outcome\":\"sql-unavailable\"}}",
        text);
    assertEquals(m, json.readValue(text, BatchMetadata.class));
    assertTrue(m.reportsQueue());
  }

  @Test
  void absentQueueStateIsLeftOutSoOlderServersStillParseTheBatch() throws Exception {
    String text = json.writeValueAsString(new BatchMetadata(4, 3, 2, 1).sentAt(9));
    assertFalse(text.contains("oldestUnsyncedMillis"), text);
    assertFalse(text.contains("lastAttempt"), text);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "negative-oldest|,\"oldestUnsyncedMillis\":-1",
        "string-oldest|,\"oldestUnsyncedMillis\":\"1000\"",
        "float-oldest|,\"oldestUnsyncedMillis\":1.5",
        "overflowing-oldest|,\"oldestUnsyncedMillis\":99999999999999999999999",
        "negative-attempt-time|,\"lastAttempt\":{\"atMillis\":-5,\"outcome\":\"ok\"}",
        "missing-attempt-time|,\"lastAttempt\":{\"outcome\":\"ok\"}",
        "null-attempt-time|,\"lastAttempt\":{\"atMillis\":null,\"outcome\":\"ok\"}",
        "missing-outcome|,\"lastAttempt\":{\"atMillis\":5}",
        "number-outcome|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":7}",
        "empty-outcome|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"\"}",
        "upper-case-outcome|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"OK\"}",
        "outcome-with-space|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"ok now\"}",
        "outcome-with-markup|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"<script>\"}",
        "outcome-with-newline|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"ok\\nFAKE\"}",
        "leading-dash-outcome|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"-ok\"}",
        "unknown-attempt-member|,\"lastAttempt\":{\"atMillis\":5,\"outcome\":\"ok\",\"x\":1}",
        "attempt-not-object|,\"lastAttempt\":\"ok\"",
        "unknown-metadata-member|,\"nextRetryMillis\":5",
      })
  void hostileQueueStateIsRefused(String name, String members) {
    assertThrows(
        JacksonException.class,
        () -> json.readValue("{" + COUNTERS + members + "}", BatchMetadata.class),
        name);
  }

  @Test
  void oversizedOutcomeIsRefusedWithItsLengthNotItsText() {
    String huge = "a".repeat(100_000);
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new SyncAttempt(5, huge));
    assertTrue(e.getMessage().contains("got 100000 characters"), e.getMessage());
    assertTrue(e.getMessage().length() < 200, "message stays short");
    assertThrows(
        JacksonException.class,
        () -> json.readValue("{\"atMillis\":5,\"outcome\":\"" + huge + "\"}", SyncAttempt.class));
  }

  @Test
  void longestOutcomeTokenIsAccepted() {
    String longest = "transport-" + "x".repeat(SyncAttempt.MAX_OUTCOME - 10);
    assertEquals(longest, new SyncAttempt(0, longest).outcome());
    assertThrows(IllegalArgumentException.class, () -> new SyncAttempt(0, longest + "x"));
  }

  @Test
  void okIsTheOnlySuccessfulOutcome() {
    assertTrue(new SyncAttempt(0, SyncAttempt.OK).ok());
    assertFalse(new SyncAttempt(0, "rate-limited").ok());
  }
}
