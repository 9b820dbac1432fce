package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

final class KafkaRelayConfigTest {
  static KafkaRelayConfig with(String bootstrap, String topic, int shards) {
    return new KafkaRelayConfig(
        bootstrap, topic, shards, Duration.ofSeconds(10), Duration.ofMillis(20), 2_000);
  }

  @Test
  void shardsAreOneToSixtyFour() {
    assertEquals(1, with("127.0.0.1:9092", "t", 1).shards());
    assertEquals(64, with("127.0.0.1:9092", "t", 64).shards());
    assertThrows(IllegalArgumentException.class, () -> with("127.0.0.1:9092", "t", 0));
    assertThrows(IllegalArgumentException.class, () -> with("127.0.0.1:9092", "t", 65));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "host", "host:", ":9092", "a:1,", "a:1;b:2", "a:123456", "a b:1"})
  void malformedBootstrapsAreRefused(String bootstrap) {
    assertThrows(IllegalArgumentException.class, () -> with(bootstrap, "t", 1));
  }

  @ParameterizedTest
  @ValueSource(strings = {"h:1", "127.0.0.1:9092,127.0.0.1:9093", "kafka-0.internal:9092"})
  void bootstrapsAreHostPortLists(String bootstrap) {
    assertEquals(bootstrap, with(bootstrap, "t", 1).bootstrap());
  }

  @Test
  void topicNamesAreKafkasAndAtMostTwoHundredCharacters() {
    assertEquals(200, with("h:1", "t".repeat(200), 1).topic().length());
    assertThrows(IllegalArgumentException.class, () -> with("h:1", "t".repeat(201), 1));
    assertThrows(IllegalArgumentException.class, () -> with("h:1", "a/b", 1));
    assertThrows(IllegalArgumentException.class, () -> with("h:1", "", 1));
  }

  @Test
  void leasePollAndTransactionSizeHaveBounds() {
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new KafkaRelayConfig("h:1", "t", 1, Duration.ofMillis(999), Duration.ofMillis(20), 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new KafkaRelayConfig("h:1", "t", 1, Duration.ofSeconds(1), Duration.ZERO, 1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new KafkaRelayConfig("h:1", "t", 1, Duration.ofSeconds(1), Duration.ofMillis(1), 0));
    assertThrows(
        IllegalArgumentException.class,
        () ->
            new KafkaRelayConfig(
                "h:1", "t", 1, Duration.ofSeconds(1), Duration.ofMillis(1), 10_001));
    assertEquals(
        10_000,
        new KafkaRelayConfig("h:1", "t", 1, Duration.ofSeconds(1), Duration.ofMillis(1), 10_000)
            .maxRecordsPerTransaction());
  }

  @Test
  void everyRoomHasOneShardInRangeAndEveryShardItsTransactionalId() {
    KafkaRelayConfig c = with("h:1", "danmaku.confirmed", 4);
    for (String room : new String[] {"a", "b", "room-1", "直播间", "x".repeat(500)}) {
      int s = c.shardOf(room);
      assertTrue(s >= 0 && s < 4, room + " -> " + s);
      assertEquals(s, c.shardOf(room));
    }
    assertEquals("danmaku-relay.danmaku.confirmed.3", c.transactionalId(3));
    assertEquals("danmaku.confirmed.relay-positions", c.positionsTopic());
  }
}
