package dev.danmakuledger.protocol.error;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ErrorCodeTest {
  @Test
  void codesAreUniqueLowercaseKebab() {
    Set<String> seen = new HashSet<>();
    for (ErrorCode c : ErrorCode.values()) {
      assertTrue(c.code().matches("[a-z]+(-[a-z]+)*"), c.code());
      assertTrue(seen.add(c.code()), c.code());
      assertTrue(c.status() >= 400 && c.status() <= 599, c + " " + c.status());
      assertEquals(c, ErrorCode.fromCode(c.code()));
    }
  }

  @Test
  void statusesAreTheContractedOnes() {
    assertEquals(400, ErrorCode.MALFORMED_JSON.status());
    assertEquals(413, ErrorCode.TOO_MANY_RECORDS.status());
    assertEquals(401, ErrorCode.UNAUTHENTICATED.status());
    assertEquals(403, ErrorCode.BAD_SIGNATURE.status());
    assertEquals(409, ErrorCode.SIZE_MISMATCH.status());
    assertEquals(409, ErrorCode.FORK_DETECTED.status());
    assertEquals(422, ErrorCode.IDEMPOTENCY_CONFLICT.status());
    assertEquals(422, ErrorCode.BAD_PROOF.status());
    assertEquals(507, ErrorCode.STORE_FULL.status());
    assertEquals(503, ErrorCode.REDIS_UNAVAILABLE.status());
    assertEquals("idempotency-conflict", ErrorCode.IDEMPOTENCY_CONFLICT.code());
  }

  @Test
  void unknownCodeIsRejected() {
    assertThrows(IllegalArgumentException.class, () -> ErrorCode.fromCode("nope"));
    assertThrows(IllegalArgumentException.class, () -> ErrorCode.fromCode(null));
  }

  /** docs/errors.md has one table row per code: | `code` | status | ... and no stale rows. */
  @Test
  void errorsDocumentListsEveryCodeWithItsStatus() throws IOException {
    String doc = Files.readString(Path.of("..", "docs", "errors.md"), StandardCharsets.UTF_8);
    Matcher rows = Pattern.compile("(?m)^\\| `([a-z-]+)` \\| (\\d{3}) \\|").matcher(doc);
    Set<String> documented = new HashSet<>();
    while (rows.find()) {
      ErrorCode code = ErrorCode.fromCode(rows.group(1));
      assertEquals(code.status(), Integer.parseInt(rows.group(2)), code.code());
      assertTrue(documented.add(code.code()), "listed twice: " + code.code());
    }
    assertEquals(ErrorCode.values().length, documented.size(), "documented: " + documented);
  }
}
