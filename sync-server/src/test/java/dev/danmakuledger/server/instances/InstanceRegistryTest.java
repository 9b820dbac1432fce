package dev.danmakuledger.server.instances;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.danmakuledger.protocol.wire.admin.InstanceList;
import org.junit.jupiter.api.Test;

class InstanceRegistryTest {
  static final String GOOD =
      "{\"id\":\"i-1\",\"address\":\"http://10.0.0.5:8080\",\"version\":\"dev\","
          + "\"startedAt\":\"2026-12-01T08:00:00Z\",\"heartbeatAt\":\"2026-12-01T08:00:05Z\","
          + "\"status\":\"UP\",\"batchesPerSecond\":2.5,\"subscribers\":3}";

  @Test
  void readsAWellFormedEntry() {
    InstanceList.Instance i = InstanceRegistry.parse("i-1", GOOD);
    assertEquals("http://10.0.0.5:8080", i.address());
    assertEquals(3, i.subscribers());
  }

  @Test
  void skipsEntriesThatAreNotInstances() {
    assertNull(InstanceRegistry.parse("i-2", GOOD), "field and id differ");
    assertNull(InstanceRegistry.parse("i-1", "not json"));
    assertNull(InstanceRegistry.parse("i-1", null));
    assertNull(InstanceRegistry.parse("i-1", GOOD.replace("2026-12-01T08:00:05Z", "yesterday")));
    assertNull(
        InstanceRegistry.parse("i-1", GOOD.replace("\"subscribers\":3", "\"subscribers\":-1")));
    assertNull(InstanceRegistry.parse("i-1", GOOD.replace("\"UP\"", "\"SIDEWAYS\"")));
    assertNull(InstanceRegistry.parse("i-1", GOOD.replace("dev", "d".repeat(5_000))));
  }
}
