package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import okhttp3.OkHttpClient;
import okhttp3.mockwebserver.MockResponse;
import okhttp3.mockwebserver.MockWebServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Enrolment and the server link it records. */
class EnrollmentTest {
  @TempDir Path dir;
  final String serverKey =
      NoteSigner.generate("test-server", new SecureRandom(new byte[] {3})).verifierKey();
  MockWebServer web;
  SyncClient client;
  DeviceIdentity id;

  @BeforeEach
  void setUp() throws IOException {
    web = new MockWebServer();
    web.start();
    client = new SyncClient(new OkHttpClient(), web.url("/").toString(), Clock.systemUTC());
    id = DeviceIdentity.generate(dir, "dev-1", new SecureRandom(new byte[] {1}));
  }

  @AfterEach
  void tearDown() throws IOException {
    web.shutdown();
  }

  MockResponse reply(String deviceId, String key) {
    return new MockResponse()
        .setHeader("Content-Type", "application/json")
        .setBody(
            "{\"deviceId\":\""
                + deviceId
                + "\",\"origin\":\"danmaku-ledger/device/"
                + deviceId
                + "\",\"serverVerifierKey\":\""
                + key
                + "\"}");
  }

  @Test
  void savesTheServerAndItsReceiptKey() throws Exception {
    web.enqueue(reply("dev-1", serverKey));

    ServerLink link = Enrollment.enroll(client, id, "tok", dir);

    assertEquals(serverKey, link.serverVerifierKey());
    assertEquals(link, ServerLink.load(dir).orElseThrow());
    String body = web.takeRequest().getBody().readUtf8();
    assertTrue(body.contains(Base64.getEncoder().encodeToString(id.signer().publicKey())), body);
  }

  @Test
  void replyForAnotherDeviceIsRefusedAndNothingSaved() {
    web.enqueue(reply("dev-2", serverKey));
    IOException e = assertThrows(IOException.class, () -> Enrollment.enroll(client, id, "t", dir));
    assertTrue(e.getMessage().contains("dev-2"), e.getMessage());
    assertFalse(Files.exists(dir.resolve(ServerLink.FILE_NAME)));
  }

  @Test
  void malformedServerKeyIsRefused() {
    web.enqueue(reply("dev-1", "not-a-key"));
    assertThrows(IOException.class, () -> Enrollment.enroll(client, id, "t", dir));
    assertFalse(Files.exists(dir.resolve(ServerLink.FILE_NAME)));
  }

  @Test
  void wrongTokenIsAProblemWithItsCode() {
    web.enqueue(
        new MockResponse()
            .setResponseCode(403)
            .setHeader("Content-Type", "application/problem+json")
            .setBody(
                "{\"type\":\"https://danmaku-ledger.dev/problems/forbidden\",\"title\":\"t\","
                    + "\"status\":403,\"code\":\"forbidden\",\"detail\":\"wrong token\"}"));
    ServerProblemException e =
        assertThrows(ServerProblemException.class, () -> Enrollment.enroll(client, id, "t", dir));
    assertEquals("forbidden", e.code());
  }

  @Test
  void linkFileIsOptionalButMustBeWellFormed() throws Exception {
    assertTrue(ServerLink.load(dir).isEmpty());
    Files.writeString(dir.resolve(ServerLink.FILE_NAME), "server=gopher://x\n");
    assertThrows(IOException.class, () -> ServerLink.load(dir));
  }
}
