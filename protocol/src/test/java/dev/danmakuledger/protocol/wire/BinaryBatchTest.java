package dev.danmakuledger.protocol.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The framing of a binary batch body (docs/sync.md, "Binary batches"), and hostile bodies. */
final class BinaryBatchTest {
  static final byte[] HEAD =
      "{\"oldSize\":7,\"records\":[],\"checkpoint\":\"c\"}".getBytes(StandardCharsets.UTF_8);
  static final List<byte[]> RECORDS = List.of(new byte[] {1, 2, 3}, new byte[0], new byte[] {9});

  @Test
  void roundTrip() {
    BinaryBatch.Parts p = BinaryBatch.decode(BinaryBatch.encode(HEAD, RECORDS), 3);
    assertArrayEquals(HEAD, p.head());
    assertEquals(RECORDS.size(), p.records().size());
    for (int i = 0; i < RECORDS.size(); i++) {
      assertArrayEquals(RECORDS.get(i), p.records().get(i));
    }
  }

  @Test
  void layoutIsLengthPrefixedBigEndian() {
    byte[] body = BinaryBatch.encode(new byte[] {'{', '}'}, List.of(new byte[] {5}));
    assertArrayEquals(new byte[] {0, 0, 0, 2, '{', '}', 0, 0, 0, 1, 0, 0, 0, 1, 5}, body);
  }

  @Test
  void noRecords() {
    assertEquals(0, BinaryBatch.decode(BinaryBatch.encode(HEAD, List.of()), 0).records().size());
  }

  @Test
  void emptyBody() {
    assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(new byte[0], 10));
  }

  @Test
  void everyTruncationIsMalformed() {
    byte[] body = BinaryBatch.encode(HEAD, RECORDS);
    for (int n = 0; n < body.length; n++) {
      byte[] cut = Arrays.copyOf(body, n);
      assertThrows(
          BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(cut, 10), "cut at " + n);
    }
  }

  @Test
  void trailingByte() {
    byte[] body = BinaryBatch.encode(HEAD, RECORDS);
    byte[] longer = Arrays.copyOf(body, body.length + 1);
    var e =
        assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(longer, 10));
    assertTrue(e.getMessage().contains("after the last record"), e.getMessage());
  }

  @Test
  void headOfZeroBytes() {
    byte[] body = ByteBuffer.allocate(8).putInt(0).putInt(0).array();
    assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(body, 10));
  }

  @Test
  void headExactlyAtTheLimitOneByteMoreIsMalformed() {
    byte[] atLimit = new byte[BinaryBatch.MAX_HEAD_BYTES];
    Arrays.fill(atLimit, (byte) ' ');
    assertEquals(
        BinaryBatch.MAX_HEAD_BYTES,
        BinaryBatch.decode(BinaryBatch.encode(atLimit, List.of()), 0).head().length);
    byte[] over =
        ByteBuffer.allocate(4 + BinaryBatch.MAX_HEAD_BYTES + 1 + 4)
            .putInt(BinaryBatch.MAX_HEAD_BYTES + 1)
            .array();
    assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(over, 0));
    assertThrows(
        IllegalArgumentException.class,
        () -> BinaryBatch.encode(new byte[BinaryBatch.MAX_HEAD_BYTES + 1], List.of()));
  }

  @Test
  void headLengthAllOnesIsMalformedNotAnAllocation() {
    byte[] body = ByteBuffer.allocate(8).putInt(-1).putInt(0).array();
    assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(body, 10));
  }

  @Test
  void countExactlyAtTheLimitOneMoreIsTooMany() {
    byte[] body = BinaryBatch.encode(HEAD, RECORDS);
    assertEquals(3, BinaryBatch.decode(body, 3).records().size());
    var e =
        assertThrows(BinaryBatch.TooManyRecordsException.class, () -> BinaryBatch.decode(body, 2));
    assertEquals(3, e.count());
  }

  @Test
  void countLargerThanTheBytesThatFollowIsMalformedNotAnAllocation() {
    byte[] body =
        ByteBuffer.allocate(4 + HEAD.length + 4 + 8)
            .putInt(HEAD.length)
            .put(HEAD)
            .putInt(1_000_000)
            .array();
    assertThrows(
        BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(body, Integer.MAX_VALUE));
  }

  @Test
  void countAllOnesIsTooMany() {
    byte[] body =
        ByteBuffer.allocate(4 + HEAD.length + 4).putInt(HEAD.length).put(HEAD).putInt(-1).array();
    var e =
        assertThrows(
            BinaryBatch.TooManyRecordsException.class,
            () -> BinaryBatch.decode(body, Integer.MAX_VALUE));
    assertEquals(0xFFFFFFFFL, e.count());
  }

  @Test
  void recordLengthPastTheEndIsMalformed() {
    byte[] body =
        ByteBuffer.allocate(4 + HEAD.length + 4 + 4 + 2)
            .putInt(HEAD.length)
            .put(HEAD)
            .putInt(1)
            .putInt(-1)
            .array();
    var e = assertThrows(BinaryBatch.MalformedException.class, () -> BinaryBatch.decode(body, 10));
    assertTrue(e.getMessage().startsWith("records[0]"), e.getMessage());
  }
}
