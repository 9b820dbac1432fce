package dev.danmakuledger.ui.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import okhttp3.mockwebserver.MockWebServer;

/**
 * Serves {@link FixtureApi} over HTTP on loopback until killed, for looking at the console without
 * a sync server: {@code FixtureServer PORT TOKEN_FILE [SPLIT_ROOM]}; with SPLIT_ROOM, that room's
 * log shows the console a split view on its second read. Writes the admin token to TOKEN_FILE.
 */
public final class FixtureServer {
  private FixtureServer() {}

  public static void main(String[] args) throws IOException, InterruptedException {
    int port = Integer.parseInt(args[0]);
    Files.writeString(Path.of(args[1]), FixtureApi.TOKEN + "\n");
    FixtureApi api = new FixtureApi(Ledger.standard(), Clock.systemUTC());
    api.streamFor(Duration.ofMinutes(10));
    if (args.length > 2) {
      // FixtureServer PORT TOKEN_FILE SPLIT_ROOM: that room's log forks after the first read.
      api.roomLogs.forkAfterFirstRead(args[2]);
    }
    try (MockWebServer server = new MockWebServer()) {
      server.setDispatcher(api);
      server.start(InetAddress.getLoopbackAddress(), port);
      System.err.println("fixture API on " + server.url("/"));
      System.err.println("room log verifier key " + api.roomLogs.logKey.verifierKey());
      Thread.currentThread().join();
    }
  }
}
