package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ServerWarmUpTest {
  @Test
  void refusesANegativeCount() {
    assertThrows(
        IllegalArgumentException.class, () -> new ServerWarmUp.Traffic(-1, 10, 1, 1, 0, 1));
  }

  @Test
  void refusesAWindowBelowOne() {
    assertThrows(
        IllegalArgumentException.class, () -> new ServerWarmUp.Traffic(10, 10, 1, 1, 0, 0));
    assertEquals(1, new ServerWarmUp.Traffic(10, 10, 1, 1, 0, 1).window());
  }

  @Test
  void noRecordsMeansNoServerAndNoRounds(@TempDir Path dir) throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    ServerWarmUp.Result r =
        ServerWarmUp.run(
            new ServerWarmUp.Traffic(0, 100, 2, 4, 0.1, 4),
            null,
            "redis://127.0.0.1:1",
            dir,
            "x-",
            b -> b,
            "e2e",
            new PrintStream(log, true, StandardCharsets.UTF_8));
    assertEquals(0, r.records());
    assertEquals("none", r.describe());
    assertEquals("", log.toString(StandardCharsets.UTF_8));
  }

  @Test
  void describesRecordsRoundsAndTheLastRoundsCompileShare() {
    assertEquals(
        "1,200,000 records in 12 rounds, 61.2 s; JIT on 2.1% of a core in the last round",
        new ServerWarmUp.Result(1_200_000, 12, 61.2, 0.021).describe());
    assertEquals(
        "400 records in 1 rounds, 0.5 s; compiler threads' CPU not readable",
        new ServerWarmUp.Result(400, 1, 0.5, Double.NaN).describe());
  }

  @Test
  void aWarmUpOnTwoServersSumsTheirRoundsAndEndsWithTheSecondsLastRound() {
    ServerWarmUp.Result first = new ServerWarmUp.Result(100_000, 1, 6.5, 0.71);
    ServerWarmUp.Result second = new ServerWarmUp.Result(600_000, 6, 20.25, 0.08);
    assertEquals(new ServerWarmUp.Result(700_000, 7, 26.75, 0.08), first.then(second));
  }
}
