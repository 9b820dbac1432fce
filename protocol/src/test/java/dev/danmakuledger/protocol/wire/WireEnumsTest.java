package dev.danmakuledger.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.admin.AdminEvent;
import dev.danmakuledger.protocol.wire.admin.DeviceSummary;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The statuses and event types on the wire: every known constant is written as its bare name and
 * read back as itself, and a name a newer server may send reads as {@code UNKNOWN}, never as an
 * error; anything that is not a string is still malformed.
 */
class WireEnumsTest {
  private static final ObjectMapper JSON = Json.mapper();

  static Stream<Class<? extends Enum<?>>> wireEnums() {
    return Stream.of(
        RoomMessage.Status.class,
        LogState.Status.class,
        DeviceSummary.Status.class,
        AdminEvent.Type.class,
        AdminEvent.Severity.class);
  }

  @ParameterizedTest
  @MethodSource("wireEnums")
  void everyConstantIsWrittenAsItsNameAndReadBack(Class<? extends Enum<?>> type) throws Exception {
    for (Enum<?> e : type.getEnumConstants()) {
      String text = JSON.writeValueAsString(e);
      assertEquals('"' + e.name() + '"', text);
      assertEquals(e, JSON.readValue(text, type));
    }
  }

  @ParameterizedTest
  @MethodSource("wireEnums")
  void aNameFromANewerServerReadsAsUnknown(Class<? extends Enum<?>> type) throws Exception {
    for (String name : new String[] {"\"SUSPENDED\"", "\"verified\"", "\"\"", "\" ALERT\""}) {
      assertEquals("UNKNOWN", ((Enum<?>) JSON.readValue(name, type)).name(), name);
    }
  }

  @ParameterizedTest
  @MethodSource("wireEnums")
  void aValueThatIsNotAStringIsMalformed(Class<? extends Enum<?>> type) {
    for (String value : new String[] {"0", "1.5", "true", "{}", "[\"INFO\"]"}) {
      assertThrows(JacksonException.class, () -> JSON.readValue(value, type), value);
    }
  }

  @Test
  void logStateWithAnUnknownStatusReadsAndANullStatusIsRefused() throws Exception {
    String newer =
        "{\"deviceId\":\"d\",\"verifiedSize\":0,\"rootHex\":null,\"checkpoint\":null,"
            + "\"receipt\":null,\"status\":\"SUSPENDED\"}";
    assertEquals(LogState.Status.UNKNOWN, JSON.readValue(newer, LogState.class).status());
    assertThrows(
        JacksonException.class,
        () -> JSON.readValue(newer.replace("\"SUSPENDED\"", "null"), LogState.class));
  }

  @Test
  void roomMessageWithAnUnknownStatusReads() throws Exception {
    String newer =
        "{\"room\":\"r\",\"seq\":1,\"messageId\":null,\"idempotencyKey\":null,\"deviceId\":null,"
            + "\"user\":null,\"text\":null,\"playbackMs\":null,\"mode\":0,\"color\":0,"
            + "\"fontSize\":0,\"status\":\"REDACTED\",\"deviceIndex\":null}";
    assertEquals(RoomMessage.Status.UNKNOWN, JSON.readValue(newer, RoomMessage.class).status());
  }

  @Test
  void deviceSummaryWithAnUnknownStatusReads() throws Exception {
    String newer =
        "{\"deviceId\":\"k\",\"status\":\"RETIRED\",\"verifiedSize\":1,\"claimedSize\":1,"
            + "\"pendingEstimate\":0}";
    assertEquals(DeviceSummary.Status.UNKNOWN, JSON.readValue(newer, DeviceSummary.class).status());
  }

  @Test
  void adminEventWithAnUnknownTypeAndSeverityReads() throws Exception {
    AdminEvent e =
        JSON.readValue(
            "{\"type\":\"AUDIT\",\"severity\":\"EMERGENCY\",\"message\":\"m\",\"at\":\"t\"}",
            AdminEvent.class);
    assertEquals(AdminEvent.Type.UNKNOWN, e.type());
    assertEquals(AdminEvent.Severity.UNKNOWN, e.severity());
  }

  /** The bytes of known values are those the string members wrote, member for member. */
  @Test
  void knownValuesKeepTheirBytesOnTheWire() throws Exception {
    assertEquals(
        "{\"deviceId\":\"d\",\"verifiedSize\":2,\"rootHex\":\"ab\",\"checkpoint\":null,"
            + "\"receipt\":null,\"status\":\"QUARANTINED\"}",
        JSON.writeValueAsString(
            new LogState("d", 2, "ab", null, null, LogState.Status.QUARANTINED)));
    assertEquals(
        "{\"type\":\"ALERT\",\"severity\":\"CRITICAL\",\"deviceId\":\"d\",\"room\":null,"
            + "\"message\":\"m\",\"at\":\"t\",\"data\":{\"kind\":\"FORK\"}}",
        JSON.writeValueAsString(
            new AdminEvent(
                AdminEvent.Type.ALERT,
                AdminEvent.Severity.CRITICAL,
                "d",
                null,
                "m",
                "t",
                Map.of("kind", "FORK"))));
    assertEquals(
        "{\"room\":\"r\",\"seq\":7,\"messageId\":null,\"idempotencyKey\":null,\"deviceId\":null,"
            + "\"user\":null,\"text\":null,\"playbackMs\":null,\"mode\":0,\"color\":0,"
            + "\"fontSize\":0,\"status\":\"TOMBSTONE\",\"deviceIndex\":null}",
        JSON.writeValueAsString(
            new RoomMessage(
                "r",
                7,
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
                null)));
  }

  @Test
  void namedFindsTheConstantOrTheFallback() {
    assertEquals(LogState.Status.VERIFIED, LogState.Status.fromWire("VERIFIED"));
    assertEquals(LogState.Status.UNKNOWN, LogState.Status.fromWire("UNKNOWN"));
    assertEquals(LogState.Status.UNKNOWN, LogState.Status.fromWire(null));
  }
}
