package dev.danmakuledger.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.wire.BatchMetadata;
import dev.danmakuledger.protocol.wire.SyncAttempt;
import java.security.SecureRandom;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The signed device report of docs/sync.md, "Signed reports". */
final class DeviceReportTest {
  static final String DEVICE = "kiosk-a";
  static final NoteSigner KEY =
      NoteSigner.generate(DeviceLog.origin(DEVICE), new SecureRandom(new byte[] {7}));
  static final Checkpoint HEAD = new Checkpoint(DeviceLog.origin(DEVICE), 12, new byte[32]);
  static final BatchMetadata QUEUE =
      new BatchMetadata(40, 3, 2, 1, 1_700_000_000_000L)
          .withQueue(1_699_999_000_000L, new SyncAttempt(1_699_999_990_000L, "transport-timeout"));

  static boolean verifies(long oldSize, Checkpoint cp, BatchMetadata m) {
    return DeviceReport.verifies(DEVICE, KEY.publicKey(), oldSize, cp, m);
  }

  @Test
  void theTextIsTheDocumentedLines() {
    assertEquals(
        "danmaku-ledger/device-report/v1\n"
            + "kiosk-a\n"
            + "10 12 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
            + "5\n"
            + "1700000000000\n"
            + "40 3 2 1\n"
            + "1699999000000\n"
            + "1699999990000 transport-timeout\n",
        DeviceReport.text(DEVICE, 10, HEAD, QUEUE.numbered(5)));
    assertEquals(
        "danmaku-ledger/device-report/v1\nkiosk-a\n10 12 "
            + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n5\n-\n0 0 0 0\n-\n- -\n",
        DeviceReport.text(DEVICE, 10, HEAD, new BatchMetadata(0, 0, 0, 0).numbered(5)),
        "absent members are dashes");
    assertThrows(
        IllegalArgumentException.class,
        () -> DeviceReport.text(DEVICE, 10, HEAD, QUEUE),
        "a report without a number");
  }

  @Test
  void aSignedReportVerifiesForItsBatchOnly() {
    BatchMetadata signed = DeviceReport.sign(KEY, DEVICE, 10, HEAD, QUEUE, 5);
    assertEquals(5L, signed.reportSeq());
    assertEquals(BatchMetadata.SIGNATURE_CHARS, signed.signature().length());
    assertTrue(verifies(10, HEAD, signed));
    Map<String, Boolean> tampered = new LinkedHashMap<>();
    tampered.put("other-old-size", verifies(11, HEAD, signed));
    tampered.put(
        "other-checkpoint-size",
        verifies(10, new Checkpoint(HEAD.origin(), 13, HEAD.root()), signed));
    byte[] root = new byte[32];
    root[0] = 1;
    tampered.put("other-root", verifies(10, new Checkpoint(HEAD.origin(), 12, root), signed));
    tampered.put(
        "other-number", verifies(10, HEAD, signed.numbered(6).signedWith(signed.signature())));
    tampered.put(
        "other-outcome",
        verifies(
            10,
            HEAD,
            signed
                .withQueue(signed.oldestUnsyncedMillis(), new SyncAttempt(1, "call-555-0100"))
                .signedWith(signed.signature())));
    tampered.put(
        "other-oldest",
        verifies(
            10, HEAD, signed.withQueue(0L, signed.lastAttempt()).signedWith(signed.signature())));
    tampered.put(
        "other-clock", verifies(10, HEAD, signed.sentAt(1).signedWith(signed.signature())));
    tampered.put("unsigned", verifies(10, HEAD, signed.numbered(5)));
    NoteSigner stranger = NoteSigner.generate(DeviceLog.origin(DEVICE), new SecureRandom());
    tampered.put(
        "other-key", verifies(10, HEAD, DeviceReport.sign(stranger, DEVICE, 10, HEAD, QUEUE, 5)));
    assertEquals(Map.of(), Map.copyOf(filterTrue(tampered)), "each tampering must fail");
  }

  @Test
  void theDevicesCheckpointSignatureIsNoReportSignature() {
    String note = Checkpoints.sign(HEAD, KEY);
    String[] lines = note.split("\n");
    String sig = lines[lines.length - 1].substring(lines[lines.length - 1].lastIndexOf(' ') + 1);
    assertFalse(verifies(10, HEAD, QUEUE.numbered(5).signedWith(sig)), "domain separated");
  }

  private static Map<String, Boolean> filterTrue(Map<String, Boolean> m) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    m.forEach(
        (k, v) -> {
          if (v) {
            out.put(k, v);
          }
        });
    return out;
  }
}
