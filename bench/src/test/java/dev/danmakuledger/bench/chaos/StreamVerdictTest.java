package dev.danmakuledger.bench.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The room-stream verdict fed synthetic streams: an exact one passes; a duplicate, a reorder, a
 * hole, a missing tail, a wrong key and a tombstone each fail with their own problem.
 */
class StreamVerdictTest {
  /** Room SQL: seqs 1..6 CONFIRMED, seq 4 a tombstone (not in the map). */
  private static final Map<Long, String> CONFIRMED =
      new TreeMap<>(Map.of(1L, "k1", 2L, "k2", 3L, "k3", 5L, "k5", 6L, "k6"));

  /** Confirmation order differs from seq order (batches commit out of order): seq 3 came last. */
  private static List<StreamEvent> exact() {
    return new ArrayList<>(
        List.of(
            new StreamEvent(1, 1, "k1"),
            new StreamEvent(2, 2, "k2"),
            new StreamEvent(3, 5, "k5"),
            new StreamEvent(4, 6, "k6"),
            new StreamEvent(5, 3, "k3")));
  }

  private static List<String> judge(List<StreamEvent> got) {
    return StreamVerdict.problems("sub", got, CONFIRMED);
  }

  @Test
  void anExactStreamInCursorOrderPasses() {
    assertEquals(List.of(), judge(exact()));
  }

  @Test
  void duplicateFails() {
    List<StreamEvent> got = exact();
    got.add(3, new StreamEvent(3, 5, "k5")); // a resume that repeated cursor 3
    List<String> p = judge(got);
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).contains("duplicate: cursor 3 (seq 5)"), p.toString());
  }

  @Test
  void reorderFails() {
    List<StreamEvent> got = exact();
    got.set(1, new StreamEvent(3, 5, "k5"));
    got.set(2, new StreamEvent(2, 2, "k2"));
    List<String> p = judge(got);
    assertTrue(
        p.stream().anyMatch(s -> s.contains("out of order: cursor 2 after cursor 3")),
        p.toString());
  }

  @Test
  void holeFails() {
    List<StreamEvent> got = exact();
    got.remove(2); // cursor 3 (seq 5) never delivered; 4 and 5 still are
    List<String> p = judge(got);
    assertTrue(p.stream().anyMatch(s -> s.contains("hole: cursor 4 after cursor 2")), p.toString());
    assertTrue(
        p.stream().anyMatch(s -> s.contains("incomplete") && s.contains("seq is 5")), p.toString());
  }

  @Test
  void missingTailFails() {
    List<StreamEvent> got = exact();
    got.remove(4); // the last confirmed message never arrived: no gap visible, but incomplete
    List<String> p = judge(got);
    assertEquals(1, p.size(), p.toString());
    assertTrue(
        p.get(0).contains("incomplete: 4 distinct messages delivered, the room has 5"),
        p.toString());
  }

  @Test
  void aWrongKeyOrATombstoneFails() {
    List<StreamEvent> wrongKey = exact();
    wrongKey.set(0, new StreamEvent(1, 1, "other"));
    assertTrue(
        judge(wrongKey).stream().anyMatch(s -> s.contains("seq 1 delivered with key other")));
    List<StreamEvent> tombstone = exact();
    tombstone.add(new StreamEvent(6, 4, "k4"));
    assertTrue(
        judge(tombstone).stream()
            .anyMatch(s -> s.contains("seq 4 delivered, but it is no CONFIRMED")),
        judge(tombstone).toString());
  }

  @Test
  void everySubscriberIsJudgedAgainstItsOwnRoom() {
    Map<String, List<StreamEvent>> streams =
        Map.of("a/r0", exact(), "b/r0", exact().subList(0, 3), "a/r1", List.of());
    Map<String, String> roomOf = Map.of("a/r0", "r0", "b/r0", "r0", "a/r1", "r1");
    List<String> p =
        StreamVerdict.judgeAll(streams, roomOf, Map.of("r0", CONFIRMED, "r1", Map.of()));
    assertEquals(1, p.size(), p.toString());
    assertTrue(p.get(0).startsWith("b/r0: incomplete"), p.toString());
  }
}
