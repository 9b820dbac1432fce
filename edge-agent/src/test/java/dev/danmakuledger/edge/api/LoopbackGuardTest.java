package dev.danmakuledger.edge.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.error.ErrorCode;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Host, Origin and Content-Type rules of the local API, on hostile header values. */
class LoopbackGuardTest {
  private final LoopbackGuard guard = new LoopbackGuard(7071);

  @ParameterizedTest
  @ValueSource(
      strings = {
        "127.0.0.1",
        "127.0.0.1:7071",
        "127.255.255.254:1",
        "localhost",
        "LOCALHOST:7071",
        "[::1]",
        "[::1]:7071",
        "[0:0:0:0:0:0:0:1]:7071",
        " 127.0.0.1 "
      })
  void loopbackHostsPass(String host) {
    assertTrue(LoopbackGuard.isLoopbackHost(host), host);
    assertNull(guard.refusal(List.of(host), null));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "evil.example",
        "evil.example:7071",
        "127.0.0.1.evil.example",
        "localhost.evil.example",
        "localhost.",
        "128.0.0.1",
        "127.0.0",
        "127.0.0.1.1",
        "127.0.0.256",
        "0127.0.0.1",
        "127.0.0.01",
        "2130706433",
        "0x7f.0.0.1",
        "[::2]",
        "[::ffff:127.0.0.1]",
        "[::1",
        "[::1]x",
        "[evil.example]",
        "127.0.0.1:",
        "127.0.0.1:0",
        "127.0.0.1:65536",
        "127.0.0.1:7071:1",
        "127.0.0.1:+80",
        "localhost:-1",
        "::1",
        "[::1]:99999"
      })
  void otherHostsAreRefused(String host) {
    assertFalse(LoopbackGuard.isLoopbackHost(host), host);
    assertEquals(403, guard.refusal(List.of(host), null).status());
  }

  @Test
  void missingOrRepeatedHostIsRefused() {
    assertEquals(ErrorCode.FORBIDDEN.code(), guard.refusal(null, null).code());
    assertEquals(403, guard.refusal(List.of(), null).status());
    assertEquals(403, guard.refusal(List.of("127.0.0.1", "127.0.0.1"), null).status());
  }

  @Test
  void onlyTheAgentsOwnOriginsPass() {
    for (String own :
        List.of("http://127.0.0.1:7071", "http://localhost:7071", "http://[::1]:7071")) {
      assertNull(guard.refusal(List.of("127.0.0.1"), List.of(own)), own);
    }
    for (String other :
        List.of(
            "null",
            "",
            "http://evil.example",
            "http://127.0.0.1",
            "http://127.0.0.1:7072",
            "https://127.0.0.1:7071",
            "http://127.0.0.1:7071/",
            "http://localhost.evil.example:7071",
            "http://127.0.0.1:7071.evil.example")) {
      assertNotNull(guard.refusal(List.of("127.0.0.1"), List.of(other)), other);
    }
    assertNotNull(
        guard.refusal(List.of("127.0.0.1"), List.of("http://127.0.0.1:7071", "http://evil")));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "application/json",
        "APPLICATION/JSON",
        "application/json; charset=utf-8",
        "application/json;charset=UTF-8",
        "application/json; charset=\"utf-8\""
      })
  void jsonPasses(String type) {
    assertTrue(LoopbackGuard.isJson(type), type);
    assertNull(LoopbackGuard.unsupportedMediaType(type));
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "text/plain",
        "text/plain; charset=utf-8",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/jsonp",
        "application/json-patch+json",
        "application/json; charset=latin1",
        "application/json; boundary=x",
        "application/json;",
        "application/json; charset",
        "text/json"
      })
  void otherTypesAre415(String type) {
    assertFalse(LoopbackGuard.isJson(type), type);
    assertEquals(415, LoopbackGuard.unsupportedMediaType(type).status());
  }

  @Test
  void missingTypeIs415() {
    assertEquals(
        ErrorCode.UNSUPPORTED_MEDIA_TYPE.code(), LoopbackGuard.unsupportedMediaType(null).code());
  }
}
