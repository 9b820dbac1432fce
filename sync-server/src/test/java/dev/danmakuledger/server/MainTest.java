package dev.danmakuledger.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class MainTest {
  @TempDir Path dir;

  private Main parse(String... args) {
    PrintStream sink = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    Main main = new Main(sink, sink);
    new CommandLine(main).parseArgs(args);
    return main;
  }

  @Test
  void flagsBecomeTheConfig() throws Exception {
    Path words = dir.resolve("banned.txt");
    Files.writeString(words, "# comment\nspam\n\n  scam  \n");
    Path pw = dir.resolve("pw");
    Files.writeString(pw, "s3cret\n");
    ServerConfig c =
        parse(
                "--data-dir",
                dir.toString(),
                "--port",
                "9999",
                "--bind",
                "0.0.0.0",
                "--redis",
                "redis://127.0.0.1:6379",
                "--jdbc",
                "jdbc:mariadb://h/db",
                "--jdbc-user",
                "u",
                "--jdbc-password-file",
                pw.toString(),
                "--banned-words",
                words.toString(),
                "--no-review",
                "--max-body-bytes",
                "2048",
                "--max-records",
                "7",
                "--offline-after-seconds",
                "90",
                "--gap-seal-after",
                "45",
                "--attempt-window-seconds",
                "120",
                "--max-bad-signatures-per-device",
                "3",
                "--max-failures-per-address",
                "9",
                "--room-log",
                "off",
                "--room-checkpoint-interval",
                "250",
                "--server-name",
                "eu-1")
            .config();
    assertEquals(9999, c.port());
    assertEquals("0.0.0.0", c.bind());
    assertEquals("redis://127.0.0.1:6379", c.redisUri());
    assertEquals("jdbc:mariadb://h/db", c.jdbcUrl());
    assertEquals("s3cret", c.jdbcPassword());
    assertEquals(List.of("spam", "scam"), c.bannedWords());
    assertNull(c.reviewRule());
    assertEquals(2048, c.maxBodyBytes());
    assertEquals(7, c.maxRecordsPerBatch());
    assertEquals(java.time.Duration.ofSeconds(90), c.offlineAfter());
    assertEquals(java.time.Duration.ofSeconds(45), c.gapSealAfter());
    assertEquals(java.time.Duration.ofSeconds(120), c.attemptWindow());
    assertEquals(3, c.maxBadSignaturesPerDevice());
    assertEquals(9, c.maxFailuresPerAddress());
    assertEquals(false, c.roomLog());
    assertEquals(java.time.Duration.ofMillis(250), c.roomCheckpointInterval());
    assertEquals("eu-1", c.serverName());
    ServerConfig defaults = parse("--data-dir", dir.toString()).config();
    assertEquals(true, defaults.roomLog());
    assertEquals(java.time.Duration.ofSeconds(1), defaults.roomCheckpointInterval());
    assertEquals("local", defaults.serverName());
  }

  /** The help gives every default and keeps each example whole on one line. */
  @Test
  void helpGivesDefaultsAndWholeExamples() {
    String help = new CommandLine(parse("--data-dir", dir.toString())).getUsageMessage();
    for (String d :
        List.of(
            "(default 8080)",
            "(default 127.0.0.1)",
            "(default " + ServerConfig.DEFAULT_MAX_BODY_BYTES + ")",
            "(default " + ServerConfig.DEFAULT_MAX_RECORDS_PER_BATCH + ")")) {
      assertTrue(help.contains(d), d + " in:\n" + help);
    }
    for (String example :
        List.of(
            "redis://127.0.0.1:6379",
            "jdbc:mariadb://127.0.0.1:3306/danmaku",
            "http://127.0.0.1:4318")) {
      assertTrue(help.lines().anyMatch(l -> l.strip().equals(example)), example + " in:\n" + help);
    }
  }

  @Test
  void clusterSeedsAreSplitOnCommas() throws Exception {
    ServerConfig c =
        parse("--data-dir", dir.toString(), "--redis-cluster", "redis://a:1,redis://b:2").config();
    assertEquals(List.of("redis://a:1", "redis://b:2"), c.redisClusterSeeds());
  }

  @Test
  void conflictingOrBadFlagsAreRefused() throws Exception {
    assertThrows(
        CommandLine.ParameterException.class,
        () ->
            parse(
                    "--data-dir",
                    dir.toString(),
                    "--redis",
                    "redis://a",
                    "--redis-cluster",
                    "redis://b")
                .config());
    assertThrows(
        CommandLine.ParameterException.class,
        () -> parse("--data-dir", dir.toString(), "--review-pattern", "([").config());
    assertThrows(CommandLine.MissingParameterException.class, () -> parse("--port", "1"));
    assertThrows(
        IllegalArgumentException.class,
        () -> parse("--data-dir", dir.toString(), "--room-log", "maybe").config());
    assertThrows(
        IllegalArgumentException.class,
        () -> parse("--data-dir", dir.toString(), "--room-checkpoint-interval", "0").config());
    assertThrows(
        IllegalArgumentException.class,
        () -> parse("--data-dir", dir.toString(), "--server-name", "a/b").config());
    for (String hours : new String[] {"0", "-3", "8785", String.valueOf(Long.MAX_VALUE)}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  parse("--data-dir", dir.toString(), "--history-retention-hours", hours).config());
      assertEquals(
          "--history-retention-hours: got " + hours + ", want 1..8784", e.getMessage(), hours);
    }
    for (String n : new String[] {"0", "17", "-1"}) {
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () -> parse("--data-dir", dir.toString(), "--batch-window", n).config());
      assertEquals(
          "--batch-window: got " + n + ", want 1..16 (batches of one device held at once)",
          e.getMessage(),
          n);
    }
    for (int n : new int[] {1, 16}) {
      assertEquals(
          n,
          parse("--data-dir", dir.toString(), "--batch-window", Integer.toString(n))
              .config()
              .batchWindow());
    }
    assertEquals(
        ServerConfig.DEFAULT_BATCH_WINDOW,
        parse("--data-dir", dir.toString()).config().batchWindow());
    assertEquals(
        java.time.Duration.ofHours(48),
        parse("--data-dir", dir.toString(), "--history-retention-hours", "48")
            .config()
            .historyRetention());
  }

  @Test
  void aTokenFileReadableByOthersStopsTheStartWithTheFix() throws Exception {
    Path data = dir.resolve("loose");
    Files.createDirectories(data);
    Path token = Files.writeString(data.resolve("admin.token"), "known-to-everyone\n");
    Files.setPosixFilePermissions(
        token, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Main main =
        new Main(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    int code =
        new CommandLine(main)
            .execute("--data-dir", data.toString(), "--port", "0", "--redis", "redis://x:1");
    assertEquals(1, code);
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("sync-server: cannot start: "), text);
    assertTrue(text.contains("chmod 600 " + token), text);
    assertEquals("known-to-everyone\n", Files.readString(token));
  }

  @Test
  void anUnreachableDatabaseIsReportedInOneLineAndExitsNonZero() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Main main =
        new Main(
            new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    int code =
        new CommandLine(main)
            .execute(
                "--data-dir",
                dir.toString(),
                "--port",
                "0",
                "--redis",
                "redis://127.0.0.1:1",
                "--jdbc",
                "jdbc:mariadb://127.0.0.1:1/nothing?connectTimeout=500");
    assertEquals(1, code);
    String text = err.toString(StandardCharsets.UTF_8);
    assertTrue(text.startsWith("sync-server: cannot start: "), text);
  }
}
