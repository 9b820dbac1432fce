package dev.danmakuledger.bench.ingest;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The e2e shape table: a row per run, and the target ratios between runs of one invocation. */
class ShapeTableTest {
  private static ShapeTable.Entry entry(int batch, int devices, int rooms, double ours, double db) {
    IngestBenchmark.Options o =
        new IngestBenchmark.Options(
            1000, null, batch, devices, rooms, 0.1, 0, null, null, "nats://127.0.0.1:1");
    IngestBenchmark.Run run =
        new IngestBenchmark.Run(
            "test",
            new Measured("ours", 1000, 1000 / ours, 5, "", Map.of("mariadbd", db)),
            List.of(
                new Measured("mariadb-raw-insert", 1000, 1000 / 40_000.0, 3, ""),
                Measured.notMeasured("nats-jetstream-msgid", "no NATS server")),
            900,
            100,
            "",
            List.of(),
            4.0);
    return new ShapeTable.Entry(o, run);
  }

  @Test
  void liveRunsAreComparedWithBatch500OfTheirRoomsAndOneRoomWith32() {
    String table =
        ShapeTable.markdown(
            List.of(
                entry(500, 4, 1, 20_000, 20),
                entry(20, 32, 1, 16_000, 25),
                entry(500, 4, 32, 20_000, 20),
                entry(20, 32, 32, 10_000, 40)));
    assertTrue(
        table.contains("| 20 | 32 | 1 | 16,000 | 5.0 | 4.0 | 40,000 | 0.40 | – | – | 25.0 |"),
        table);
    assertTrue(table.contains("batch 20, 32 devices, 1 rooms: 0.80 of batch 500"), table);
    assertTrue(table.contains("batch 20, 32 devices, 32 rooms: 0.50 of batch 500"), table);
    assertTrue(table.contains("batch 20, 32 devices: 1 room at 1.60 of 32 rooms"), table);
    assertTrue(table.contains("database CPU a record 40.0 µs, 2.00× batch 500's 20.0 µs"), table);
  }

  @Test
  void aLoneRunHasNoTargetRatios() {
    String table = ShapeTable.markdown(List.of(entry(20, 32, 1, 16_000, 25)));
    assertFalse(table.contains("of batch 500"), table);
    assertFalse(table.contains("of 32 rooms"), table);
  }
}
