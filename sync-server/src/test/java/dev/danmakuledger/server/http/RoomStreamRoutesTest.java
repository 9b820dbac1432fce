package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The head of a room stream's response (docs/sync-server.md, "Room streams"): its small buffer is
 * set before anything is written, since the servlet API ignores a buffer size set after content.
 */
final class RoomStreamRoutesTest {
  @Test
  void theBufferIsSetFirstThenTheHeadIsFlushed() throws Exception {
    List<String> calls = new ArrayList<>();
    HttpServletResponse res =
        (HttpServletResponse)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) -> {
                  calls.add(method.getName() + (args == null ? "" : Arrays.toString(args)));
                  return null;
                });

    RoomStreamRoutes.startEventStream(res);

    assertEquals(
        List.of(
            "setBufferSize[2048]",
            "setStatus[200]",
            "setCharacterEncoding[UTF-8]",
            "setContentType[text/event-stream]",
            "addHeader[Connection, close]",
            "addHeader[Cache-Control, no-cache]",
            "addHeader[X-Accel-Buffering, no]",
            "flushBuffer"),
        calls);
    assertEquals(2048, RoomStreamRoutes.STREAM_BUFFER_BYTES);
  }
}
