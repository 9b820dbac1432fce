package dev.danmakuledger.edge.sync;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.store.StoredRecord;
import dev.danmakuledger.edge.testing.TestDevice;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.protocol.testing.MutableClock;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A batch's checkpoint and the prefix it hands to the next batch. */
class BatchTest {
  @TempDir Path dir;
  final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  TestDevice dev;

  @BeforeEach
  void setUp() throws Exception {
    dev = TestDevice.create(dir, clock);
    for (int i = 0; i < 5; i++) {
      CaptureService.await(dev.capture.submit(dev.request("u", i, "m" + i)));
    }
  }

  @AfterEach
  void tearDown() throws Exception {
    dev.close();
  }

  @Test
  void aBatchSignsTheCheckpointOfThePrefixWithItsLeavesAppended() throws Exception {
    List<StoredRecord> all = dev.store.records(0, 5);
    LogPrefix two = Batch.of(LogPrefix.EMPTY, all.subList(0, 2), dev.identity).prefix();
    Batch rest = Batch.of(two, all.subList(2, 5), dev.identity);

    assertEquals(2, rest.from());
    assertEquals(5, rest.end());
    CompactRange whole = CompactRange.empty();
    all.forEach(r -> whole.append(r.leafHash()));
    assertArrayEquals(whole.root(), rest.prefix().root());
    Checkpoint signed =
        Checkpoints.open(
            rest.note(),
            dev.identity.origin(),
            NoteVerifier.ofEd25519(dev.identity.origin(), dev.identity.signer().publicKey()));
    assertEquals(5, signed.size());
    assertArrayEquals(whole.root(), signed.root());
    assertEquals(2, two.size(), "the prefix the batch started from is unchanged");
  }

  @Test
  void anEmptyBatchPresentsTheCheckpointOfItsPrefix() throws Exception {
    LogPrefix three = Batch.of(LogPrefix.EMPTY, dev.store.records(0, 3), dev.identity).prefix();
    Batch present = Batch.of(three, List.of(), dev.identity);
    assertEquals(0, present.size());
    assertEquals(3, present.from());
    assertEquals(3, present.head().size());
    assertArrayEquals(three.root(), present.head().root());
  }

  @Test
  void aPrefixNotFromTheStartIsRefused() {
    CompactRange partial = CompactRange.of(4, 4, List.of());
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> new LogPrefix(partial));
    assertTrue(e.getMessage().contains("from 4"), e.getMessage());
  }
}
