package dev.danmakuledger.edge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.sync.ServerLink;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Instant;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code edge-agent enroll} and {@code sync --once}: messages and exit codes (docs/sync.md). */
class SyncCommandsTest {
  @TempDir Path tmp;
  final MutableClock clock = new MutableClock(Instant.parse("2026-06-01T08:00:00Z"));
  final String serverKey =
      NoteSigner.generate("test-server", new SecureRandom(new byte[] {5})).verifierKey();
  MockWebServer web;
  Path dataDir;
  Path token;
  String out;
  String err;

  @BeforeEach
  void setUp() throws Exception {
    web = new MockWebServer();
    web.start();
    dataDir = tmp.resolve("agent");
    token = tmp.resolve("enroll.token");
    Files.writeString(token, "secret-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    assertEquals(0, run("init", "--data-dir", dataDir.toString(), "--device-id", "kiosk-9"), err);
  }

  @AfterEach
  void tearDown() throws Exception {
    web.shutdown();
  }

  int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = EdgeAgentMain.execute(new PrintWriter(o), new PrintWriter(e), clock, args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  void enroll() throws Exception {
    web.enqueue(
        new MockResponse()
            .setHeader("Content-Type", "application/json")
            .setBody(
                "{\"deviceId\":\"kiosk-9\",\"origin\":\"danmaku-ledger/device/kiosk-9\","
                    + "\"serverVerifierKey\":\""
                    + serverKey
                    + "\"}"));
    int code =
        run(
            "enroll",
            "--data-dir",
            dataDir.toString(),
            "--server",
            web.url("/").toString(),
            "--token-file",
            token.toString());
    assertEquals(0, code, err);
    assertTrue(web.takeRequest().getBody().readUtf8().contains("\"enrollToken\":\"secret-token\""));
  }

  @Test
  void enrollRecordsTheServer() throws Exception {
    enroll();
    assertTrue(out.contains("enrolled kiosk-9"), out);
    assertEquals(web.url("/").toString(), ServerLink.load(dataDir).orElseThrow().serverUrl());
  }

  @Test
  void syncWithoutEnrolmentIsAUsageError() {
    assertEquals(2, run("sync", "--data-dir", dataDir.toString(), "--once"));
    assertTrue(err.contains("not enrolled"), err);
  }

  @Test
  void emptyLogSyncsToNothingAndExitsZero() throws Exception {
    enroll();
    web.enqueue(
        new MockResponse()
            .setHeader("Content-Type", "application/json")
            .setBody(
                "{\"deviceId\":\"kiosk-9\",\"verifiedSize\":0,\"rootHex\":null,"
                    + "\"checkpoint\":null,\"receipt\":null,\"status\":\"VERIFIED\"}"));
    assertEquals(0, run("sync", "--data-dir", dataDir.toString(), "--once", "--no-progress"), err);
    assertTrue(out.contains("synced 0 of 0"), out);
  }

  @Test
  void unknownDeviceStopsLoudlyWithExitOne() throws Exception {
    enroll();
    assertEquals(
        0, run("send", "--data-dir", dataDir.toString(), "--room", "r", "--user", "u", "hi"), err);
    web.enqueue(
        new MockResponse()
            .setResponseCode(401)
            .setHeader("Content-Type", "application/problem+json")
            .setBody(
                "{\"type\":\"https://danmaku-ledger.dev/problems/unauthenticated\",\"title\":\"t\","
                    + "\"status\":401,\"code\":\"unauthenticated\",\"detail\":\"unknown device\"}"));
    assertEquals(1, run("sync", "--data-dir", dataDir.toString(), "--once", "--no-progress"));
    assertTrue(err.contains("SYNC STOPPED (NOT_ENROLLED)"), err);
    assertTrue(err.contains("edge-agent enroll"), err);
  }

  @Test
  void emptyTokenFileIsRefused() throws Exception {
    Files.writeString(token, "  \n");
    int code =
        run(
            "enroll",
            "--data-dir",
            dataDir.toString(),
            "--server",
            web.url("/").toString(),
            "--token-file",
            token.toString());
    assertEquals(2, code);
    assertTrue(err.contains("empty"), err);
  }

  @Test
  void tokenFileOthersCanReadIsRefusedWithTheFix() throws Exception {
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    int code =
        run(
            "enroll",
            "--data-dir",
            dataDir.toString(),
            "--server",
            web.url("/").toString(),
            "--token-file",
            token.toString());
    assertEquals(6, code, err);
    assertTrue(err.contains("chmod 600 " + token), err);
    assertEquals(0, web.getRequestCount(), "the token must not be sent");
  }
}
