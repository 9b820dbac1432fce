package dev.danmakuledger.edge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.danmakuledger.edge.store.DataDirLock;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.QueueState;
import dev.danmakuledger.protocol.testing.MutableClock;
import dev.danmakuledger.protocol.wire.Json;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The command line in-JVM: exit codes, output, --help. */
class EdgeAgentCliTest {
  @TempDir Path tmp;
  private Path dataDir;
  private final MutableClock clock = new MutableClock(Instant.parse("2026-06-01T08:00:00Z"));
  private String out;
  private String err;

  @BeforeEach
  void setUp() {
    dataDir = tmp.resolve("agent");
  }

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = EdgeAgentMain.execute(new PrintWriter(o), new PrintWriter(e), clock, args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  private void init() {
    assertEquals(0, run("init", "--data-dir", dataDir.toString(), "--device-id", "kiosk-7"), err);
  }

  @ParameterizedTest
  @ValueSource(strings = {"init", "send", "import", "status", "verify", "prune", "run"})
  void everyCommandHasHelp(String command) {
    assertEquals(0, run(command, "--help"));
    assertTrue(out.contains("Usage: edge-agent " + command), out);
    assertTrue(out.contains("--data-dir"), out);
  }

  @Test
  void topLevelHelpListsCommandsAndExitCodes() {
    assertEquals(0, run("--help"));
    for (String c : new String[] {"init", "send", "import", "status", "verify", "prune", "run"}) {
      assertTrue(out.contains(c), out);
    }
    assertTrue(out.contains("Exit codes:"), out);
    assertTrue(out.contains("4   another edge-agent owns the data directory"), out);
  }

  /** Each command's line in the top-level help is whole sentences, never cut mid-sentence. */
  @Test
  void topLevelHelpSummarisesEveryCommandInWholeSentences() {
    assertEquals(0, run("--help"));
    String commands = out.substring(out.indexOf("Commands:"), out.indexOf("Exit codes:"));
    List<String> entries = new ArrayList<>();
    for (String line : commands.lines().skip(1).toList()) {
      if (line.startsWith("  ") && !line.startsWith("   ")) {
        entries.add(line.strip());
      } else if (!line.isBlank() && !entries.isEmpty()) {
        int last = entries.size() - 1;
        entries.set(last, entries.get(last) + " " + line.strip());
      }
    }
    assertTrue(entries.size() >= 9, commands);
    for (String e : entries) {
      assertTrue(e.endsWith("."), "a summary cut mid-sentence: " + e);
    }
  }

  @Test
  void initCreatesAPrivateKeyAndRefusesASecondInit() throws Exception {
    init();
    assertTrue(out.contains("verifier key: danmaku-ledger/device/kiosk-7+"), out);
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(
            Files.getPosixFilePermissions(dataDir.resolve("device.key"))));
    assertEquals(5, run("init", "--data-dir", dataDir.toString(), "--device-id", "kiosk-7"));
    assertTrue(err.contains("already initialised"), err);
  }

  @Test
  void initRefusesABadDeviceId() {
    assertEquals(2, run("init", "--data-dir", dataDir.toString(), "--device-id", "bad id!"));
    assertTrue(err.contains("device id"), err);
  }

  @Test
  void sendCapturesAndARepeatedKeyGetsTheOriginalAck() {
    init();
    assertEquals(
        0, run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "hello"), err);
    assertTrue(out.startsWith("captured index=0 key=kiosk-7:bob:1780300800000:"), out);
    String key = "kiosk-7:bob:1780300800000:0123456789abcdef";
    assertEquals(
        0,
        run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "--key", key, "hi"));
    assertTrue(out.startsWith("captured index=1"), out);
    assertEquals(
        0,
        run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "--key", key, "hi"));
    assertTrue(out.startsWith("repeat (original ack) index=1"), out);
    assertEquals(
        1,
        run(
            "send",
            "-d",
            dataDir.toString(),
            "--room",
            "r1",
            "--user",
            "bob",
            "--key",
            key,
            "changed"));
    assertTrue(err.contains("already used for a different message"), err);
  }

  @Test
  void sendValidatesTheKeyAndTheFields() {
    init();
    assertEquals(
        2,
        run(
            "send",
            "-d",
            dataDir.toString(),
            "--room",
            "r1",
            "--user",
            "bob",
            "--key",
            "nope",
            "x"));
    assertTrue(err.contains("idempotency key"), err);
    assertEquals(
        2,
        run(
            "send",
            "-d",
            dataDir.toString(),
            "--room",
            "r1",
            "--user",
            "bob",
            "--key",
            "other-device:bob:1780300800000:0123456789abcdef",
            "x"));
    assertTrue(err.contains("capturing device"), err);
    assertEquals(
        2,
        run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "--mode", "9", "x"));
    assertEquals(2, run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob"));
  }

  @Test
  void uninitialisedDirectoryIsExit5() {
    assertEquals(5, run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "x"));
    assertTrue(err.contains("run `edge-agent init"), err);
    assertEquals(5, run("status", "-d", dataDir.toString()));
    assertEquals(5, run("verify", "-d", dataDir.toString()));
  }

  @Test
  void lockedDirectoryIsExit4() throws Exception {
    init();
    try (DataDirLock lock = DataDirLock.acquire(dataDir)) {
      assertEquals(dataDir, lock.dataDir());
      assertEquals(4, run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "x"));
      assertTrue(err.contains("another edge-agent owns"), err);
      assertEquals(0, run("status", "-d", dataDir.toString()), "status reads while locked");
    }
  }

  @Test
  void statusReportsTheUploadQueue() throws Exception {
    init();
    assertEquals(0, run("status", "-d", dataDir.toString()));
    assertTrue(out.contains("unsynced:    none\n"), out);
    assertTrue(out.contains("last sync:   never\n"), out);
    assertTrue(out.contains("next retry:  none scheduled\n"), out);
    assertEquals(0, run("status", "-d", dataDir.toString(), "--json"));
    JsonNode empty = Json.mapper().readTree(out).get("sync");
    assertTrue(empty.get("oldestUnsyncedAt").isNull(), out);
    assertTrue(empty.get("lastAttempt").isNull(), out);
    assertTrue(empty.get("nextRetryAt").isNull(), out);

    Path file = tmp.resolve("comments.xml");
    try (InputStream in = getClass().getResourceAsStream("/bilibili/bilibili-comments.xml")) {
      Files.copy(in, file);
    }
    long capturedAt = clock.millis();
    assertEquals(
        0, run("import", "-d", dataDir.toString(), "--room", "bili", file.toString()), err);
    clock.advance(Duration.ofMinutes(20));
    try (EdgeStore store = EdgeStore.open(EdgeStore.fileIn(dataDir), Durability.FULL)) {
      QueueState.saveLastAttempt(store, new SyncAttempt(clock.millis() - 5_000, "bad-proof"));
      QueueState.saveNextRetry(store, clock.millis() + 90_000);
    }
    assertEquals(0, run("status", "-d", dataDir.toString()));
    assertTrue(out.contains("unsynced:    oldest captured 20m ago\n"), out);
    assertTrue(out.contains("last sync:   bad-proof, 5s ago\n"), out);
    assertTrue(out.contains("next retry:  in 1m30s\n"), out);
    assertEquals(0, run("status", "-d", dataDir.toString(), "--json"));
    JsonNode q = Json.mapper().readTree(out).get("sync");
    assertEquals(capturedAt, q.get("oldestUnsyncedAt").asLong());
    assertEquals("bad-proof", q.get("lastAttempt").get("outcome").asText());
    assertEquals(clock.millis() - 5_000, q.get("lastAttempt").get("atMillis").asLong());
    assertEquals(clock.millis() + 90_000, q.get("nextRetryAt").asLong());

    clock.advance(Duration.ofMinutes(3));
    assertEquals(0, run("status", "-d", dataDir.toString()));
    assertTrue(out.contains("next retry:  overdue by 1m30s (is the agent running?)\n"), out);
  }

  @Test
  void importStatusAndVerify() throws Exception {
    init();
    Path file = tmp.resolve("comments.xml");
    try (InputStream in = getClass().getResourceAsStream("/bilibili/bilibili-comments.xml")) {
      Files.copy(in, file);
    }
    assertEquals(
        0, run("import", "-d", dataDir.toString(), "--room", "bili", file.toString()), err);
    assertTrue(
        out.contains("entries: 1239, captured: 1239, duplicates: 0, conflicts: 0, skipped: 0"),
        out);
    assertEquals(
        0,
        run("import", "-d", dataDir.toString(), "--room", "bili", "--progress", file.toString()));
    assertTrue(out.contains("captured: 0, duplicates: 1239"), out);
    assertTrue(err.contains("1239/1239 100%"), "progress bar: " + err);

    assertEquals(0, run("status", "-d", dataDir.toString(), "--json"));
    JsonNode s = Json.mapper().readTree(out);
    assertEquals(1239, s.get("logSize").asLong());
    assertEquals(1239, s.get("dedupe").get("duplicates").asLong());
    assertEquals(0.001, s.get("dedupe").get("configuredFpr").asDouble());
    assertEquals(0, run("status", "-d", dataDir.toString()));
    assertTrue(out.contains("log size:    1239"), out);

    assertEquals(0, run("status", "-d", dataDir.toString(), "--records"));
    String[] lines = out.split("\n");
    assertEquals(1 + 1239, lines.length, "header + one line per record");
    assertTrue(lines[1].startsWith("0        UNSYNCED   -"), lines[1]);
    assertTrue(lines[1].contains(":"), "the idempotency key: " + lines[1]);
    assertEquals(0, run("status", "-d", dataDir.toString(), "--records", "--json"));
    JsonNode list = Json.mapper().readTree(out);
    assertEquals(1239, list.size());
    assertEquals(1238, list.get(1238).get("index").asLong());
    assertEquals("UNSYNCED", list.get(0).get("outcome").asText());

    assertEquals(0, run("verify", "-d", dataDir.toString()));
    assertTrue(out.startsWith("ok: 1239 records"), out);
  }

  @Test
  void verifyFailsWithTheFirstBadIndex() throws Exception {
    init();
    for (int i = 0; i < 5; i++) {
      assertEquals(0, run("send", "-d", dataDir.toString(), "--room", "r", "--user", "u", "m" + i));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dataDir));
        Statement st = c.createStatement()) {
      st.executeUpdate("DELETE FROM records WHERE idx = 2");
    }
    assertEquals(1, run("verify", "-d", dataDir.toString()));
    assertTrue(out.startsWith("FAILED at index 2: record 2 is missing"), out);
  }

  @Test
  void truncatedStoreIsNeverReplacedByAFreshLog() throws Exception {
    init();
    assertEquals(0, run("send", "-d", dataDir.toString(), "--room", "r", "--user", "u", "m"));
    Files.write(EdgeStore.fileIn(dataDir), new byte[0]);
    assertEquals(6, run("send", "-d", dataDir.toString(), "--room", "r", "--user", "u", "m2"));
    assertTrue(err.contains("the device log was lost or truncated"), err);
    assertEquals(0, Files.size(EdgeStore.fileIn(dataDir)), "no fresh log was written");
    assertEquals(1, run("verify", "-d", dataDir.toString()));
    assertTrue(out.contains("lost or truncated"), out);
  }

  @Test
  void fullStoreIsExit3AndKeepsEverythingCaptured() throws Exception {
    assertEquals(
        0,
        run(
            "init",
            "-d",
            dataDir.toString(),
            "--device-id",
            "kiosk-7",
            "--max-store-bytes",
            "65536"));
    int code = 0;
    int captured = 0;
    while (code == 0 && captured < 500) {
      code =
          run(
              "send",
              "-d",
              dataDir.toString(),
              "--room",
              "r",
              "--user",
              "u",
              "message " + captured);
      if (code == 0) {
        captured++;
      }
    }
    assertEquals(3, code, err);
    assertTrue(err.contains("store is full"), err);
    assertEquals(3, run("send", "-d", dataDir.toString(), "--room", "r", "--user", "u", "more"));
    assertEquals(0, run("verify", "-d", dataDir.toString()));
    assertTrue(out.startsWith("ok: " + captured + " records"), out);
  }

  @Test
  void importOfAMissingFileIsAnIoError() {
    init();
    assertEquals(
        6,
        run("import", "-d", dataDir.toString(), "--room", "r", tmp.resolve("none.xml").toString()));
    assertTrue(err.contains("none.xml"), err);
  }

  @Test
  void unknownOptionIsAUsageError() {
    assertEquals(2, run("status", "--data-dir", dataDir.toString(), "--bogus"));
    assertTrue(err.contains("Unknown option"), err);
  }

  @Test
  void runRefusesANonLoopbackAddress() {
    init();
    assertEquals(2, run("run", "-d", dataDir.toString(), "--listen", "0.0.0.0:0"));
    assertTrue(err.contains("loopback"), err);
  }

  @Test
  void pruneNeedsAnInitialisedDirectory() {
    assertEquals(5, run("prune", "-d", dataDir.toString()));
  }

  @Test
  void pruneRefusesANonPositiveOrMalformedAge() {
    init();
    assertEquals(2, run("prune", "-d", dataDir.toString(), "--older-than", "PT0S"));
    assertTrue(err.contains("want a positive duration"), err);
    assertEquals(2, run("prune", "-d", dataDir.toString(), "--older-than", "-P1D"));
    assertEquals(2, run("prune", "-d", dataDir.toString(), "--older-than", "yesterday"));
  }

  @Test
  void initRejectsANegativeRetention() {
    assertEquals(
        2, run("init", "-d", dataDir.toString(), "--device-id", "kiosk-7", "--retention", "-P1D"));
    assertTrue(err.contains("retention"), err);
  }

  @Test
  void pruneKeepsEverythingByDefault() {
    init();
    assertEquals(0, run("prune", "-d", dataDir.toString()));
    assertTrue(out.contains("keep forever"), out);
  }

  @Test
  void pruneDropsCoveredRecordsAndVerifyCountsThem() throws Exception {
    assertEquals(
        0,
        run("init", "-d", dataDir.toString(), "--device-id", "kiosk-7", "--retention", "P1D"),
        err);
    assertTrue(
        Files.readString(dataDir.resolve("agent.properties")).contains("retention=PT24H"),
        "retention stored");
    for (int i = 0; i < 3; i++) {
      assertEquals(
          0, run("send", "-d", dataDir.toString(), "--room", "r1", "--user", "bob", "hi " + i));
    }
    try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + EdgeStore.fileIn(dataDir));
        Statement st = c.createStatement()) {
      st.executeUpdate("UPDATE records SET outcome = 'CONFIRMED', seq = idx + 1");
      st.executeUpdate("INSERT INTO receipts(size, note, received_at) VALUES (3, 'note', 0)");
    }
    assertEquals(0, run("prune", "-d", dataDir.toString()), err);
    assertTrue(out.contains("pruned 0 records"), out);
    clock.advance(Duration.ofDays(2));

    assertEquals(0, run("prune", "-d", dataDir.toString()), err);
    assertTrue(out.contains("pruned 2 records"), out);
    assertEquals(0, run("verify", "-d", dataDir.toString()), out);
    assertTrue(out.contains("pruned: 2 records"), out);
  }
}
