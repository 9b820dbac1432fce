package dev.danmakuledger.bench.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.bench.report.BenchResult;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code --json FILE} document has the shape docs/benchmarks.md documents. */
class ReportJsonTest {
  @TempDir Path dir;

  @Test
  void writesMachineAndOneRowPerBaselineWithTheRatio() throws Exception {
    Output output = new Output();
    output.json = dir.resolve("out/e2e.json");
    List<BenchResult> rows =
        List.of(
            BenchResult.compared(
                "e2e", "records/s", 81234, "mariadb-raw-insert", 114020, 12.5, "batch 500"),
            BenchResult.notMeasured(
                "e2e", "records/s", 81234, "nats-jetstream-msgid", "no NATS server at nats://x"));
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    output.emit(new PrintStream(printed, true, StandardCharsets.UTF_8), rows);

    JsonNode doc = new ObjectMapper().readTree(output.json.toFile());
    assertEquals(Set.of("machine", "results"), names(doc));
    assertEquals(
        Set.of("cores", "memoryBytes", "jvm", "os", "peakHeapBytes"), names(doc.get("machine")));
    assertTrue(doc.get("machine").get("cores").asInt() >= 1);

    JsonNode measured = doc.get("results").get(0);
    assertEquals("e2e", measured.get("benchmark").asText());
    assertEquals("records/s", measured.get("metric").asText());
    assertEquals(81234, measured.get("ours").asDouble());
    assertEquals("mariadb-raw-insert", measured.get("baseline").asText());
    assertEquals(114020, measured.get("baselineValue").asDouble());
    assertEquals(81234.0 / 114020, measured.get("ratio").asDouble(), 1e-12);
    assertEquals(12.5, measured.get("p99Ms").asDouble());

    JsonNode missing = doc.get("results").get(1);
    assertFalse(missing.has("baselineValue"), "a baseline not measured has no value");
    assertFalse(missing.has("ratio"));
    assertTrue(missing.get("note").asText().startsWith("not measured: no NATS server"));

    String table = printed.toString(StandardCharsets.UTF_8);
    assertTrue(table.startsWith(System.lineSeparator() + "machine: "), table);
    assertTrue(table.contains("not measured"), table);
    assertTrue(table.contains("0.71"), table);
  }

  private static Set<String> names(JsonNode node) {
    Set<String> out = new TreeSet<>();
    node.fieldNames().forEachRemaining(out::add);
    return out;
  }
}
