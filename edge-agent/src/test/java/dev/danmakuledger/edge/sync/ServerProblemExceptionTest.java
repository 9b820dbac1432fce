package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.error.Problem;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The typed error code of a server refusal. */
class ServerProblemExceptionTest {
  @Test
  void aKnownCodeIsParsedToItsEnum() {
    for (ErrorCode c : ErrorCode.values()) {
      ServerProblemException e =
          new ServerProblemException(c.status(), Problem.of(c, "x"), null, "call");
      assertEquals(Optional.of(c), e.errorCode());
    }
  }

  @Test
  void anUnknownOrMissingCodeIsEmptyNotAnError() {
    Problem internal = Problem.of(ErrorCode.INTERNAL, "x");
    ServerProblemException odd =
        new ServerProblemException(
            418,
            new Problem(
                "https://danmaku-ledger.dev/problems/teapot", "t", 418, "d", "teapot", null, null),
            null,
            "call");
    assertEquals(Optional.empty(), odd.errorCode());
    assertEquals("teapot", odd.code());
    assertEquals(Optional.empty(), new ServerProblemException(502, null, null, "call").errorCode());
    assertTrue(new ServerProblemException(500, internal, null, "call").errorCode().isPresent());
  }
}
