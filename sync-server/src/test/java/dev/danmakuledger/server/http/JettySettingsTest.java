package dev.danmakuledger.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.javalin.Javalin;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;

/**
 * The listener Javalin starts with the API's settings (docs/operations.md, "Admission limits"): its
 * listen backlog is the API's, not the JDK's 50, so a burst of connections beyond 50 is held by the
 * kernel until the acceptor takes it.
 */
final class JettySettingsTest {
  @Test
  void theListenerHoldsABacklogOfTheApisSizeAndServesABurstBeyondTheJdksDefault() throws Exception {
    Javalin app =
        Javalin.create(
            cfg ->
                JettySettings.configure(
                    cfg,
                    HttpLimits.DEFAULTS,
                    1 << 20,
                    new ObjectMapper(),
                    JettySettings.threadPool(HttpLimits.DEFAULTS)));
    app.get("/ping", ctx -> ctx.result("pong"));
    app.start("127.0.0.1", 0);
    try {
      List<ServerConnector> listeners = new ArrayList<>();
      for (Connector c : app.jettyServer().server().getConnectors()) {
        if (c instanceof ServerConnector s) {
          listeners.add(s);
        }
      }
      assertEquals(1, listeners.size());
      assertEquals(JettySettings.ACCEPT_QUEUE, listeners.get(0).getAcceptQueueSize());

      List<Socket> burst = new ArrayList<>();
      try {
        for (int i = 0; i < 200; i++) {
          burst.add(new Socket("127.0.0.1", app.port()));
        }
        for (Socket s : burst) {
          s.setSoTimeout(10_000);
          OutputStream out = s.getOutputStream();
          out.write(
              "GET /ping HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                  .getBytes(StandardCharsets.US_ASCII));
          out.flush();
        }
        for (Socket s : burst) {
          InputStream in = s.getInputStream();
          String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
          assertTrue(reply.startsWith("HTTP/1.1 200"), reply);
          assertTrue(reply.endsWith("pong"), reply);
        }
      } finally {
        for (Socket s : burst) {
          s.close();
        }
      }
    } finally {
      app.stop();
    }
  }
}
