package dev.danmakuledger.protocol.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The binary body of {@code POST /v1/devices/{deviceId}/batches}, media type {@value #MEDIA_TYPE}
 * (docs/sync.md, "Binary batches"): the records' canonical bytes as they are instead of in base64,
 * which deflate compresses about a sixth better. Big-endian, nothing between or after the parts:
 *
 * <ol>
 *   <li>{@code u32} head length H, 1..{@value #MAX_HEAD_BYTES};
 *   <li>the head: H bytes of the batch's JSON ({@link BatchRequest}) with {@code "records": []};
 *   <li>{@code u32} record count N;
 *   <li>N times: {@code u32} length L, then L canonical record bytes (docs/canonical-record.md);
 *       record i has index {@code oldSize + i}.
 * </ol>
 *
 * <p>The decoder checks the framing only, and allocates no more than the body's own size whatever
 * the lengths claim; the head is left to the strict JSON parser, the records to ingest.
 */
public final class BinaryBatch {
  /** The media type of a binary batch body. */
  public static final String MEDIA_TYPE = "application/vnd.danmaku-ledger.batch";

  /** Largest head: a checkpoint note of at most 2,048 characters and the metadata fit well. */
  public static final int MAX_HEAD_BYTES = 16 * 1024;

  private BinaryBatch() {}

  /**
   * A decoded body's parts.
   *
   * @param head the head's JSON bytes
   * @param records the canonical bytes of each record, in log order
   */
  public record Parts(byte[] head, List<byte[]> records) {
    public Parts {
      Objects.requireNonNull(head, "head");
      records = Checks.list("records", records);
    }
  }

  /** A body whose framing is broken: truncated, a length out of bounds, or bytes after the end. */
  public static final class MalformedException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    MalformedException(String message) {
      super(message);
    }
  }

  /** A body that announces more records than the reader takes. */
  public static final class TooManyRecordsException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;
    private final long count;

    TooManyRecordsException(long count, int max) {
      super("records: got " + count + ", want at most " + max + "; split the batch");
      this.count = count;
    }

    /** The count the body announced. */
    public long count() {
      return count;
    }
  }

  /**
   * The body of a batch with the JSON {@code head} and the records' canonical bytes.
   *
   * @throws IllegalArgumentException if the head is empty or longer than {@value #MAX_HEAD_BYTES}
   */
  public static byte[] encode(byte[] head, List<byte[]> records) {
    if (head.length < 1 || head.length > MAX_HEAD_BYTES) {
      throw new IllegalArgumentException(
          "head: got " + head.length + " bytes, want 1.." + MAX_HEAD_BYTES);
    }
    long size = 8L + head.length;
    for (byte[] r : records) {
      size += 4L + r.length;
    }
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("body: got " + size + " bytes, want less than 2 GiB");
    }
    ByteBuffer out = ByteBuffer.allocate((int) size);
    out.putInt(head.length).put(head).putInt(records.size());
    for (byte[] r : records) {
      out.putInt(r.length).put(r);
    }
    return out.array();
  }

  /**
   * Splits {@code body} into its head and records.
   *
   * @param maxRecords the most records taken
   * @throws MalformedException if the framing is broken
   * @throws TooManyRecordsException if the body announces more than {@code maxRecords} records
   */
  public static Parts decode(byte[] body, int maxRecords) {
    ByteBuffer in = ByteBuffer.wrap(body);
    long headLength = u32(in, "head length");
    if (headLength < 1 || headLength > MAX_HEAD_BYTES) {
      throw new MalformedException(
          "head length: got " + headLength + ", want 1.." + MAX_HEAD_BYTES);
    }
    byte[] head = bytes(in, headLength, "head");
    long count = u32(in, "record count");
    if (count > maxRecords) {
      throw new TooManyRecordsException(count, maxRecords);
    }
    if (count > in.remaining() / 4) {
      throw new MalformedException(
          "record count: got "
              + count
              + ", but only "
              + in.remaining()
              + " bytes follow (4 or more a record)");
    }
    List<byte[]> records = new ArrayList<>((int) count);
    for (int i = 0; i < count; i++) {
      records.add(bytes(in, u32(in, "records[" + i + "] length"), "records[" + i + "]"));
    }
    if (in.hasRemaining()) {
      throw new MalformedException(
          "body: got " + in.remaining() + " bytes after the last record, want none");
    }
    return new Parts(head, records);
  }

  private static long u32(ByteBuffer in, String what) {
    if (in.remaining() < 4) {
      throw new MalformedException(
          what
              + ": truncated, got "
              + in.remaining()
              + " of its 4 bytes at offset "
              + in.position());
    }
    return Integer.toUnsignedLong(in.getInt());
  }

  private static byte[] bytes(ByteBuffer in, long length, String what) {
    if (length > in.remaining()) {
      throw new MalformedException(
          what
              + ": truncated, its length is "
              + length
              + " but "
              + in.remaining()
              + " bytes follow at offset "
              + in.position());
    }
    byte[] out = new byte[(int) length];
    in.get(out);
    return out;
  }
}
