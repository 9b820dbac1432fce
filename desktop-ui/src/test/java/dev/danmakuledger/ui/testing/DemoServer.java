package dev.danmakuledger.ui.testing;

import dev.danmakuledger.server.ServerConfig;
import dev.danmakuledger.server.SyncServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Pattern;
import okhttp3.HttpUrl;
import okhttp3.OkHttpClient;

/**
 * A real sync server with demo traffic, for looking at the console and taking its screenshots:
 * {@code DemoServer PORT DATA_DIR TOKEN_FILE}. Starts the server (embedded Redis and H2), writes
 * the admin token to TOKEN_FILE, then streams the Bilibili sample from four devices in small signed
 * batches (with double-click retries the server must dedupe), holds messages containing 合影 for
 * review, rejects a banned word, and finally sends a forked checkpoint from one device. Runs until
 * killed.
 */
public final class DemoServer {
  private DemoServer() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    SyncServer server =
        SyncServer.start(
            ServerConfig.builder(Path.of(args[1]))
                .port(port)
                .reviewRule(Pattern.compile("合影"))
                .bannedWords(List.of("asd"))
                .build());
    Files.writeString(Path.of(args[2]), server.adminToken() + "\n");
    System.err.println("demo sync server on " + server.baseUri());
    Ledger ledger =
        Ledger.build(
            List.of("kiosk-1", "kiosk-2", "stb-7", "phone-12"),
            List.of("lobby", "live.1"),
            150,
            9,
            System.currentTimeMillis() - 900_000);
    OkHttpClient http = new OkHttpClient();
    ServerLoader loader = new ServerLoader(http, HttpUrl.get(server.baseUri()));
    for (Ledger.Device d : ledger.devices.values()) {
      loader.enroll(d, server.enrollToken());
    }
    int[] sent = new int[ledger.devices.size()];
    boolean more = true;
    for (int round = 0; more; round++) {
      more = false;
      int i = 0;
      for (Ledger.Device d : ledger.devices.values()) {
        int step = 2 + (round + i) % 5;
        int to = (int) Math.min(d.size(), sent[i] + step);
        if (d.id.equals("phone-12") && round > 12) {
          to = sent[i];
        }
        if (to > sent[i]) {
          loader.push(d, sent[i], to);
          sent[i] = to;
          more = true;
        }
        i++;
      }
      Thread.sleep(2500);
    }
    loader.fork(ledger.devices.get("stb-7"));
    System.err.println("demo traffic done");
    Thread.currentThread().join();
  }
}
