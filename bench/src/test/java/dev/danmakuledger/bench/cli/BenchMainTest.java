package dev.danmakuledger.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Option parsing of {@code bin/bench}: help everywhere, bad values refused before any work. */
class BenchMainTest {
  private record Result(int code, String out, String err) {}

  private static Result run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int code = BenchMain.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
    return new Result(code, out.toString(), err.toString());
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"e2e", "backlog", "proofs", "redis", "edge", "merkle", "chaos", "tamper", "live"})
  void everySubcommandHasHelp(String sub) {
    PrintStream stderr = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    Result r;
    try {
      // picocli reports a description it cannot format (a lone '%') on System.err
      System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
      r = run(sub, "--help");
    } finally {
      System.setErr(stderr);
    }
    assertEquals(0, r.code(), r.err());
    assertTrue(r.out().startsWith("Usage: bench " + sub), r.out());
    assertTrue(r.out().contains("--json=FILE"), r.out());
    assertEquals("", warnings.toString(StandardCharsets.UTF_8));
  }

  @org.junit.jupiter.api.Test
  void topLevelHelpListsEverySubcommandAndTheExitCodes() {
    Result r = run("--help");
    assertEquals(0, r.code());
    for (String sub :
        new String[] {"e2e", "proofs", "redis", "edge", "merkle", "chaos", "tamper", "live"}) {
      assertTrue(r.out().contains("  " + sub + " "), sub + " missing from:\n" + r.out());
    }
    assertTrue(r.out().contains("1   a check failed"), r.out());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "e2e --batch-size 0|batch size: got 0, want 1..10000",
        "live --rate 0|rate: got 0, want 1..100000",
        "live --linger 5s|linger: got PT5S, want 1ms..1s",
        "live --linger 20ms,5s|linger: got PT5S, want 1ms..1s",
        "live --duration 0s|want a positive duration",
        "live --duration 11m|duration: got PT11M, want 1s..10m",
        "live --warm-up PT-1S|want a duration of 0s or more",
        "live --warm-up 601s|warm-up: got PT10M1S, want 0s..10m",
        "live --warm-up soon|want a duration such as 90s",
        "kafka --devices 0|devices: got 0, want 1..500",
        "kafka --warm-up PT-1S|want a duration of 0s or more",
        "kafka --warm-up 11m|warm-up: got PT11M, want 0s..10m",
        "kafka --rounds 0|rounds: got 0, want 1..9",
        "kafka --rounds 10|rounds: got 10, want 1..9",
        "kafka --broker-jvm big|got 'big', want small or server",
        "kafka --shards 65|shards: got 65, want 1..64",
        "kafka --rooms 257|rooms: got 257, want 1..256",
        "rooms --warm-up 11m|warm-up: got PT11M, want 0s..10m",
        "rooms --servers 0|servers: got 0, want 1..4",
        "rooms --servers 5|servers: got 5, want 1..4",
        "rooms --servers 2|servers: got 2 without --jdbc, want 1",
        "live --jdbc jdbc:postgresql://x/y|want jdbc:mariadb://host:port",
        "e2e --batch-size 500,50000|batch size: got 50000, want 1..10000",
        "e2e --devices 0|devices: got 0, want 1..256",
        "e2e --shape bursty|want custom, live or sweep",
        "e2e --duplicates 1.5|duplicate share: got 1.5, want 0..0.9",
        "e2e --duplicates NaN|duplicate share: got NaN, want 0..0.9",
        "e2e --records -5|records: got -5, want >= 1",
        "e2e --devices four|'four' is not an int",
        "e2e --duration 0s|want a positive duration",
        "e2e --duration soon|want a duration such as 90s",
        "e2e --room-checkpoint-interval 0s|want a positive duration",
        "e2e --room-checkpoint-interval soon|want a duration such as 90s",
        "e2e --jdbc jdbc:postgresql://x/y|want jdbc:mariadb://host:port",
        "proofs --leaves 1|leaves: got 1, want 2..100000000",
        "proofs --samples 0|want >= 1 each",
        "redis --threads 0|threads: got 0, want 1..64",
        "edge --records 10|got records 10",
        "merkle --iterations 0|want forks >= 0, warmups >= 0, iterations >= 1",
        "chaos --duration -3m|want a duration such as 90s",
        "chaos --agents 0|agents: got 0, want 1..16",
        "chaos --rate 0|rate: got 0.0, want 0 < rate <= 500",
        "chaos --drop 0.4 --lose 0.4|want >= 0, sum <= 0.5",
        "chaos --duration 1m|want that or --without mariadb-restart",
        "chaos --own-mariadb --without no-such-fault|fault: got no-such-fault, want one of",
        "chaos --own-mariadb --gap-seal-after 0s|want a positive duration",
        "chaos --own-mariadb --gap-seal-after 11m|gap-seal-after: got PT11M, want 1s..10m",
        "chaos --own-mariadb --servers 9|servers: got 9, want 1..8",
        "chaos --own-mariadb --servers -1|servers: got -1, want 1..8",
        "chaos --own-mariadb --servers two|'two' is not an int",
        "chaos --servers 2 --without mariadb-restart,sql-connection-kill,two-instances|servers: got 2 on the embedded H2",
        "chaos --own-mariadb --servers 1|want that or --without two-instances",
        "chaos --own-mariadb --balancer nginx|balancer: got nginx, want proxy or haproxy",
        "tamper --unknown|Unknown option: '--unknown'"
      })
  void badValuesAreUsageErrors(String line, String message) {
    Result r = run(line.split(" "));
    assertEquals(ExitCodes.USAGE, r.code(), r.out() + r.err());
    assertTrue(r.err().contains(message), "stderr: " + r.err());
  }
}
