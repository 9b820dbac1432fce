package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.Base64;
import org.junit.jupiter.api.Test;

final class LocalKafkaTest {
  @Test
  void aClusterIdIsSixteenBytesAndNeverReadsAsAnOptionOfTheStorageTool() {
    // one id in 64 would start with '-' if drawn once; 2,000 draws meet that case ~31 times
    for (int i = 0; i < 2_000; i++) {
      String id = LocalKafka.clusterId();
      assertFalse(id.startsWith("-"), id);
      assertEquals(16, Base64.getUrlDecoder().decode(id).length, id);
    }
  }
}
