package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code tlog fetch-room} against a local HTTP server publishing a room log written with the tile
 * writers (as the sync server does under {@code /v1/rooms/<room>/log/}): the mirror it makes passes
 * {@code verify-room}, a second fetch after the log grew fetches only what changed, and a server
 * that serves tampered or oversized files, or a mirror with a planted symbolic link, is caught.
 */
class TlogFetchRoomTest {
  private static final NoteSigner SIGNER =
      NoteSigner.generate("danmaku-ledger/server-log/s1", new SecureRandom());
  private static final String PREFIX = "/v1/rooms/live.main/log/";

  @TempDir Path dir;
  private RoomMirror published;
  private HttpServer server;
  private final List<String> requests = Collections.synchronizedList(new ArrayList<>());
  private final Map<String, byte[]> tampered = new HashMap<>();

  @BeforeEach
  void serve() throws IOException {
    published = new RoomMirror(dir.resolve("server"), SIGNER);
    Files.createDirectories(published.dir);
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.createContext(
        "/",
        ex -> {
          String path = ex.getRequestURI().getPath();
          requests.add(path);
          byte[] body = null;
          if (path.startsWith(PREFIX)) {
            String rel = path.substring(PREFIX.length());
            body = tampered.get(rel);
            if (body == null) {
              try {
                body = published.read(rel);
              } catch (NoSuchFileException e) {
                body = null;
              }
            }
          }
          ex.sendResponseHeaders(body == null ? 404 : 200, body == null ? -1 : body.length);
          if (body != null) {
            try (OutputStream o = ex.getResponseBody()) {
              o.write(body);
            }
          }
          ex.close();
        });
    server.start();
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  @Test
  void mirrorVerifiesAndSecondFetchIsIncremental() throws IOException {
    published.growTo(600);
    Path mirror = dir.resolve("mirror");
    TlogTest.Result r = fetch(mirror);
    assertEquals(0, r.status(), r.err());
    assertEquals(
        RoomMirror.ORIGIN
            + " size 600: fetched 8 files (checkpoint included), kept 0 full tiles and bundles"
            + " already mirrored\n",
        r.out());
    assertEquals(0, verifyRoom(mirror).status());

    Path previous = Files.copy(mirror.resolve("checkpoint"), dir.resolve("cp600.note"));
    published.growTo(700);
    requests.clear();
    r = fetch(mirror);
    assertEquals(0, r.status(), r.err());
    assertTrue(r.out().endsWith("kept 4 full tiles and bundles already mirrored\n"), r.out());
    assertFalse(requests.contains(PREFIX + "tile/0/000"), requests.toString());
    assertFalse(requests.contains(PREFIX + "tile/entries/001"), requests.toString());
    assertTrue(requests.contains(PREFIX + "tile/0/002.p/188"), requests.toString());
    TlogTest.Result v = verifyRoom(mirror, "--previous", previous.toString());
    assertEquals(0, v.status(), v.err());
    assertTrue(v.out().contains("700 entries"), v.out());
  }

  @Test
  void missingPartialTileIsFetchedAsItsFullTile() throws IOException {
    String cp300 = published.growTo(300);
    published.growTo(600);
    Files.delete(published.dir.resolve("tile/0/001.p/44"));
    Files.delete(published.dir.resolve("tile/entries/001.p/44"));
    tampered.put("checkpoint", cp300.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    Path mirror = dir.resolve("mirror");
    TlogTest.Result r = fetch(mirror);
    assertEquals(0, r.status(), r.err());
    assertTrue(Files.exists(mirror.resolve("tile/0/001")));
    assertTrue(Files.exists(mirror.resolve("tile/entries/001")));
    TlogTest.Result v = verifyRoom(mirror);
    assertEquals(0, v.status(), v.err());
    assertTrue(v.out().contains("300 entries"), v.out());
  }

  @Test
  void tamperedTileIsCaughtByVerifyRoom() throws IOException {
    published.growTo(600);
    byte[] t = published.read("tile/0/001");
    t[100] ^= 1;
    tampered.put("tile/0/001", t);
    Path mirror = dir.resolve("mirror");
    assertEquals(0, fetch(mirror).status());
    TlogTest.Result v = verifyRoom(mirror);
    assertEquals(1, v.status(), v.out());
    assertTrue(v.err().contains("invalid: "), v.err());
  }

  @Test
  void tileOfTheWrongSizeIsRefused() throws IOException {
    published.growTo(600);
    tampered.put("tile/0/000", new byte[8192 + 32]);
    TlogTest.Result r = fetch(dir.resolve("mirror"));
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("tile/0/000: response larger than 8192 bytes"), r.err());
    assertFalse(Files.exists(dir.resolve("mirror/checkpoint")));
  }

  @Test
  void malformedBundleIsRefused() throws IOException {
    published.growTo(600);
    tampered.put("tile/entries/000", new byte[] {0, 5, 1});
    TlogTest.Result r = fetch(dir.resolve("mirror"));
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("tile/entries/000: entry bundle: entry 0 wants 5 bytes"), r.err());
  }

  @Test
  void checkpointOfAnotherRoomIsRefused() throws IOException {
    published.growTo(10);
    TlogTest.Result r =
        TlogTest.run(
            "fetch-room",
            "http://127.0.0.1:" + server.getAddress().getPort(),
            "other",
            "--out",
            dir.resolve("m").toString());
    assertEquals(1, r.status(), r.err());
    assertTrue(r.err().contains("HTTP 404"), r.err());
    tampered.put("checkpoint", "hello\n".getBytes());
    assertEquals(1, fetch(dir.resolve("m")).status());
  }

  @Test
  void symbolicLinkInTheMirrorIsNotWrittenThrough() throws IOException {
    published.growTo(600);
    Path mirror = Files.createDirectories(dir.resolve("mirror"));
    Path outside = Files.createDirectories(dir.resolve("outside"));
    Files.createSymbolicLink(mirror.resolve("tile"), outside);
    TlogTest.Result r = fetch(mirror);
    assertEquals(2, r.status(), r.err());
    assertTrue(r.err().contains("is a symbolic link"), r.err());
    try (var s = Files.list(outside)) {
      assertEquals(0, s.count());
    }
  }

  @Test
  void badArguments() {
    assertEquals(2, TlogTest.run("fetch-room", "ftp://x", "r1", "--out", "d").status());
    assertEquals(2, TlogTest.run("fetch-room", "http://x/?q", "r1", "--out", "d").status());
    assertEquals(2, TlogTest.run("fetch-room", "http://x", "..", "--out", "d").status());
    assertEquals(2, TlogTest.run("fetch-room", "http://x", "a/b", "--out", "d").status());
  }

  private TlogTest.Result fetch(Path mirror) {
    return TlogTest.run(
        "fetch-room",
        "http://127.0.0.1:" + server.getAddress().getPort() + "/",
        "live.main",
        "--out",
        mirror.toString());
  }

  private static TlogTest.Result verifyRoom(Path mirror, String... more) {
    List<String> args = new ArrayList<>(List.of("verify-room", "--vkey", SIGNER.verifierKey()));
    args.addAll(List.of(more));
    args.add(mirror.toString());
    return TlogTest.run(args.toArray(String[]::new));
  }
}
