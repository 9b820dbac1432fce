package dev.danmakuledger.server.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

final class ShardBatchTest {
  private static ProducerRecord<String, String> record(String room, long cursor) {
    return new ProducerRecord<>("t", room, room + "#" + cursor);
  }

  private static List<String> values(ShardRelay.Batch b) {
    return b.records().stream().map(ProducerRecord::value).toList();
  }

  @Test
  void aBatchReadWhileTheLastCommittedIsFollowedByWhatTheRoomsGotSinceInCursorOrder() {
    ShardRelay.Batch early =
        new ShardRelay.Batch(
            List.of(record("a", 1), record("a", 2), record("b", 7)),
            Map.of("a", 2L, "b", 7L),
            true);
    ShardRelay.Batch since =
        new ShardRelay.Batch(
            List.of(record("a", 3), record("c", 1)), Map.of("a", 3L, "c", 1L), false);

    ShardRelay.Batch both = early.plus(since);

    assertEquals(List.of("a#1", "a#2", "b#7", "a#3", "c#1"), values(both));
    assertEquals(Map.of("a", 3L, "b", 7L, "c", 1L), both.moved());
    assertFalse(both.more(), "the later read saw every head known when it ran");
    assertEquals(Map.of("a", 3L, "b", 7L, "c", 1L, "d", 4L), both.after(Map.of("a", 1L, "d", 4L)));
  }

  @Test
  void aLaterReadThatLeftARoomBehindKeepsTheBatchMarkedAsHoldingMore() {
    ShardRelay.Batch early = new ShardRelay.Batch(List.of(record("a", 1)), Map.of("a", 1L), false);
    ShardRelay.Batch since = new ShardRelay.Batch(List.of(), Map.of(), true);

    ShardRelay.Batch both = early.plus(since);

    assertTrue(both.more());
    assertEquals(List.of("a#1"), values(both));
    assertFalse(both.empty());
  }
}
