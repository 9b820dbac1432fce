package dev.danmakuledger.protocol.id;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.protocol.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

class MessageIdTest {
  private static final long T = Instant.parse("2026-11-30T05:44:14.123Z").toEpochMilli();

  @Test
  void encodesTheDocumentedLayout() {
    MessageId id = new MessageId(MessageId.EPOCH_MILLIS + 1, 1, 1);
    assertEquals((1L << 22) | (1L << 12) | 1, id.encode());
    assertEquals(0L, new MessageId(MessageId.EPOCH_MILLIS, 0, 0).encode());
    MessageId max =
        new MessageId(
            MessageId.EPOCH_MILLIS + MessageId.MAX_OFFSET,
            MessageId.MAX_NODE,
            MessageId.MAX_SEQUENCE);
    assertEquals(Long.MAX_VALUE, max.encode());
    assertEquals(max, MessageId.decode(Long.MAX_VALUE));
    assertEquals(1704067200000L, MessageId.EPOCH_MILLIS);
  }

  @Test
  void toStringIsHumanReadable() {
    MessageId id = new MessageId(T, 5, 17);
    assertEquals("2026-11-30T05:44:14.123Z node 5 seq 17 (id " + id.encode() + ")", id.toString());
  }

  @Test
  void rejectsOutOfRangeParts() {
    assertThrows(
        IllegalArgumentException.class, () -> new MessageId(MessageId.EPOCH_MILLIS - 1, 0, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MessageId(MessageId.EPOCH_MILLIS + MessageId.MAX_OFFSET + 1, 0, 0));
    assertThrows(IllegalArgumentException.class, () -> new MessageId(T, -1, 0));
    assertThrows(IllegalArgumentException.class, () -> new MessageId(T, 1024, 0));
    assertThrows(IllegalArgumentException.class, () -> new MessageId(T, 0, -1));
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new MessageId(T, 0, 4096));
    assertEquals("message id sequence: got 4096, want 0..4095", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> MessageId.decode(-1));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MessageIdGenerator(1024, new MutableClock(Instant.ofEpochMilli(T))));
    assertThrows(
        IllegalArgumentException.class,
        () -> new MessageIdGenerator(-1, new MutableClock(Instant.ofEpochMilli(T))));
  }

  @Property(seed = "5150", tries = 300)
  void decodeInvertsEncode(
      @ForAll @LongRange(min = 0, max = (1L << 41) - 1) long offset,
      @ForAll @IntRange(min = 0, max = 1023) int node,
      @ForAll @IntRange(min = 0, max = 4095) int seq) {
    MessageId id = new MessageId(MessageId.EPOCH_MILLIS + offset, node, seq);
    assertEquals(id, MessageId.decode(id.encode()));
  }

  @Property(seed = "5151", tries = 300)
  void encodeInvertsDecode(@ForAll @LongRange(min = 0) long raw) {
    assertEquals(raw, MessageId.decode(raw).encode());
  }

  @Test
  void generatorStampsNodeAndTime() {
    MessageIdGenerator gen = new MessageIdGenerator(7, new MutableClock(Instant.ofEpochMilli(T)));
    MessageId first = MessageId.decode(gen.next());
    assertEquals(new MessageId(T, 7, 0), first);
    assertEquals(new MessageId(T, 7, 1), MessageId.decode(gen.next()));
  }

  @Test
  void generatorKeepsItsLastTimestampWhenTheClockGoesBackwards() {
    MutableClock clock = new MutableClock(Instant.ofEpochMilli(T));
    MessageIdGenerator gen = new MessageIdGenerator(3, clock);
    long a = gen.next();
    clock.set(Instant.ofEpochMilli(T - 10_000));
    long b = gen.next();
    assertTrue(b > a);
    assertEquals(new MessageId(T, 3, 1), MessageId.decode(b));
    clock.set(Instant.ofEpochMilli(T + 1));
    assertEquals(new MessageId(T + 1, 3, 0), MessageId.decode(gen.next()));
  }

  @Test
  void generatorBorrowsTheNextMillisecondWhenTheSequenceIsExhausted() {
    MutableClock clock = new MutableClock(Instant.ofEpochMilli(T));
    MessageIdGenerator gen = new MessageIdGenerator(1, clock);
    long previous = -1;
    for (int i = 0; i <= MessageId.MAX_SEQUENCE; i++) {
      long id = gen.next();
      assertTrue(id > previous);
      previous = id;
    }
    assertEquals(new MessageId(T, 1, 4095), MessageId.decode(previous));
    long borrowed = gen.next();
    assertEquals(new MessageId(T + 1, 1, 0), MessageId.decode(borrowed));
    clock.set(Instant.ofEpochMilli(T + 1));
    assertEquals(new MessageId(T + 1, 1, 1), MessageId.decode(gen.next()));
  }

  @Test
  void generatorRefusesTimesOutsideTheIdRange() {
    assertThrows(
        IllegalStateException.class,
        () ->
            new MessageIdGenerator(
                    0, new MutableClock(Instant.ofEpochMilli(MessageId.EPOCH_MILLIS - 1)))
                .next());
    assertThrows(
        IllegalStateException.class,
        () ->
            new MessageIdGenerator(
                    0,
                    new MutableClock(
                        Instant.ofEpochMilli(MessageId.EPOCH_MILLIS + MessageId.MAX_OFFSET + 1)))
                .next());
  }

  @Test
  void generatorIsUniqueAndMonotonicPerThreadAcrossThreads() throws Exception {
    MutableClock clock = new MutableClock(Instant.ofEpochMilli(T));
    MessageIdGenerator gen = new MessageIdGenerator(9, clock);
    int threads = 4;
    int perThread = 20_000;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<long[]>> futures = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        Callable<long[]> task =
            () -> {
              long[] ids = new long[perThread];
              for (int i = 0; i < perThread; i++) {
                if (thread == 0 && i % 1000 == 0) {
                  clock.advance(Duration.ofMillis(i % 3000 == 0 ? -2 : 1));
                }
                ids[i] = gen.next();
              }
              return ids;
            };
        futures.add(pool.submit(task));
      }
      Set<Long> all = new HashSet<>();
      for (Future<long[]> f : futures) {
        long[] ids = f.get();
        for (int i = 0; i < ids.length; i++) {
          assertTrue(i == 0 || ids[i] > ids[i - 1], "not monotonic within a thread");
          assertTrue(all.add(ids[i]), "duplicate id " + MessageId.decode(ids[i]));
        }
      }
      assertEquals(threads * perThread, all.size());
    } finally {
      pool.shutdownNow();
    }
  }
}
