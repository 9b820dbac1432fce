package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class LedgerClientTest {
  private ServerSocket server;
  private URI base;
  private final AtomicInteger connections = new AtomicInteger();

  /**
   * A server answering every connection on a thread of its own, each batch with a reply whose
   * verified size is the length of the batch's body, so replies can be told apart.
   */
  @BeforeEach
  void serve() throws IOException {
    server = new ServerSocket(0);
    Thread acceptor =
        new Thread(
            () -> {
              while (!server.isClosed()) {
                try {
                  Socket s = server.accept();
                  connections.incrementAndGet();
                  Thread t = new Thread(() -> answer(s));
                  t.setDaemon(true);
                  t.start();
                } catch (IOException e) {
                  return;
                }
              }
            });
    acceptor.setDaemon(true);
    acceptor.start();
    base = URI.create("http://127.0.0.1:" + server.getLocalPort());
  }

  private static void answer(Socket s) {
    try (s) {
      InputStream in = s.getInputStream();
      OutputStream out = s.getOutputStream();
      while (true) {
        String request = PlainHttpTest.readRequest(in);
        if (request == null) {
          return;
        }
        int length = request.length() - request.indexOf("\r\n\r\n") - 4;
        byte[] body =
            ("{\"deviceId\":\"d1\",\"verifiedSize\":" + length + ",\"outcomes\":[]}")
                .getBytes(StandardCharsets.UTF_8);
        out.write(
            ("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                    + body.length
                    + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.write(body);
        out.flush();
      }
    } catch (IOException e) {
      // the client went away
    }
  }

  @AfterEach
  void stop() throws IOException {
    server.close();
  }

  @Test
  void batchesInFlightTakeAConnectionEachAndAnAnsweredOneTakesTheNext()
      throws IOException, InterruptedException {
    LedgerClient own = new LedgerClient(base, Duration.ofSeconds(5)).withOwnConnections();

    LedgerClient.SentBatch first = own.sendBatch("d1", "x".getBytes());
    LedgerClient.SentBatch second = own.sendBatch("d1", "yy".getBytes());

    assertEquals(2, second.reply().body().verifiedSize());
    assertEquals(1, first.reply().body().verifiedSize());
    assertThrows(IllegalStateException.class, first::reply);
    assertEquals(3, own.postBatch("d1", "zzz".getBytes()).body().verifiedSize());
    assertEquals(2, connections.get());
  }

  @Test
  void onlyAClientWithConnectionsOfItsOwnSendsWithoutWaiting() {
    LedgerClient shared = new LedgerClient(base, Duration.ofSeconds(5));

    assertThrows(IllegalStateException.class, () -> shared.sendBatch("d1", new byte[0]));
  }
}
