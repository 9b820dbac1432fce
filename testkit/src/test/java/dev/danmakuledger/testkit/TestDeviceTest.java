package dev.danmakuledger.testkit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.protocol.DeviceLog;
import dev.danmakuledger.protocol.record.DanmakuRecord;
import dev.danmakuledger.protocol.wire.BatchRequest;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

/** The test device's log and signatures check out with the same verifiers a server uses. */
class TestDeviceTest {
  @Test
  void batchesCarryCheckpointsTheDeviceKeyVerifies() throws Exception {
    TestDevice d = TestDevice.create("kiosk-1");
    DanmakuRecord a = d.record("room-1", "alice", "你好");
    DanmakuRecord b = d.record("room-1", "bob", "👋");
    BatchRequest batch = d.batch(a, b);
    assertEquals(0, batch.oldSize());
    assertEquals(2, batch.records().size());
    NoteVerifier v = NoteVerifier.parse(d.signer.verifierKey());
    Checkpoint cp = Checkpoints.open(batch.checkpoint(), DeviceLog.origin("kiosk-1"), v);
    assertEquals(2, cp.size());
    assertArrayEquals(d.root(), cp.root());
    assertArrayEquals(d.root(), d.rootAt(2));
  }

  @Test
  void earlierRootsCheckpointsAndInclusionProofsAgreeWithTheLog() throws Exception {
    TestDevice d = TestDevice.create("kiosk-2");
    for (int i = 0; i < 13; i++) {
      d.batch(d.record("room-" + (i % 3), "u" + i, "message " + i));
    }
    TestDevice replay = d.cloneDevice();
    byte[] at5 = d.rootAt(5);
    Checkpoint cp =
        Checkpoints.open(
            d.checkpointAt(5),
            DeviceLog.origin("kiosk-2"),
            NoteVerifier.parse(d.signer.verifierKey()));
    assertArrayEquals(at5, cp.root());
    for (long i = 0; i < d.size(); i++) {
      InclusionProof.verify(i, d.size(), d.leafHash(i), d.inclusionProof(i), d.root());
    }
    assertArrayEquals(d.root(), replay.root());
    assertEquals(3, d.resend(2, 5).records().size());
    assertThrows(IllegalArgumentException.class, () -> d.rootAt(14));
    assertThrows(IllegalArgumentException.class, () -> d.resend(6, 5));
  }

  @Test
  void aSeededRandomGivesTheSameKey() throws Exception {
    SecureRandom r1 = SecureRandom.getInstance("SHA1PRNG");
    r1.setSeed(42);
    SecureRandom r2 = SecureRandom.getInstance("SHA1PRNG");
    r2.setSeed(42);
    assertEquals(
        TestDevice.create("stb-7", r1).signer.verifierKey(),
        TestDevice.create("stb-7", r2).signer.verifierKey());
  }
}
