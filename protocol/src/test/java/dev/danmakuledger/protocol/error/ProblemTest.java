package dev.danmakuledger.protocol.error;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.protocol.wire.Json;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class ProblemTest {
  private final ObjectMapper json = Json.mapper();

  @Test
  void ofFillsTheStandardMembersFromTheCode() {
    Problem p = Problem.of(ErrorCode.SIZE_MISMATCH, "server has 12, batch starts at 10");
    assertEquals("https://danmaku-ledger.dev/problems/size-mismatch", p.type());
    assertEquals(409, p.status());
    assertEquals("size-mismatch", p.code());
    assertEquals(ErrorCode.SIZE_MISMATCH.title(), p.title());
    assertEquals(Map.of(), p.extensions());
    assertEquals("application/problem+json", Problem.MEDIA_TYPE);
  }

  @Test
  void serialisesStandardMembersFirstAndExtensionsFlat() throws Exception {
    Problem p =
        Problem.of(ErrorCode.SIZE_MISMATCH, "server has 12, batch starts at 10")
            .with("verifiedSize", 12)
            .withInstance("/v1/devices/d/batches");
    assertEquals(
        "{\"type\":\"https://danmaku-ledger.dev/problems/size-mismatch\","
            + "\"title\":\"Batch does not start at the verified log size\",\"status\":409,"
            + "\"detail\":\"server has 12, batch starts at 10\",\"code\":\"size-mismatch\","
            + "\"instance\":\"/v1/devices/d/batches\",\"verifiedSize\":12}",
        json.writeValueAsString(p));
  }

  @Test
  void omitsAbsentOptionalMembers() throws Exception {
    assertEquals(
        "{\"type\":\"https://danmaku-ledger.dev/problems/internal\","
            + "\"title\":\"Internal server error\",\"status\":500,\"code\":\"internal\"}",
        json.writeValueAsString(Problem.of(ErrorCode.INTERNAL, null)));
  }

  @Test
  void readsExtensionsBackIntoTheMap() throws Exception {
    Problem p =
        Problem.of(ErrorCode.IDEMPOTENCY_CONFLICT, "same key, different text")
            .with("idempotencyKey", "d:u:1732953600000:0123456789abcdef")
            .with("originalSeq", 41);
    Problem back = json.readValue(json.writeValueAsString(p), Problem.class);
    assertEquals(p, back);
    assertEquals(Optional.of(ErrorCode.IDEMPOTENCY_CONFLICT), back.errorCode());
  }

  @Test
  void toleratesProblemsFromNewerServers() throws Exception {
    Problem p =
        json.readValue(
            "{\"type\":\"https://danmaku-ledger.dev/problems/new-thing\",\"title\":\"t\","
                + "\"status\":418,\"code\":\"new-thing\",\"hint\":\"x\"}",
            Problem.class);
    assertEquals(Optional.empty(), p.errorCode());
    assertEquals(Map.of("hint", "x"), p.extensions());
  }

  @Test
  void extensionsCannotShadowStandardMembers() {
    Problem p = Problem.of(ErrorCode.NOT_FOUND, "no such device");
    for (String name : new String[] {"type", "title", "status", "detail", "code", "instance", ""}) {
      assertThrows(IllegalArgumentException.class, () -> p.with(name, 1), name);
    }
    assertThrows(IllegalArgumentException.class, () -> p.with(null, 1));
  }

  @Test
  void extensionsAreImmutable() {
    Problem p = Problem.of(ErrorCode.NOT_FOUND, "x").with("a", 1);
    assertThrows(UnsupportedOperationException.class, () -> p.extensions().put("b", 2));
  }

  @Test
  void rejectsImpossibleStatus() {
    assertThrows(
        IllegalArgumentException.class, () -> new Problem("t", "t", 99, null, "c", null, null));
    assertThrows(
        IllegalArgumentException.class, () -> new Problem("t", "t", 600, null, "c", null, null));
  }
}
