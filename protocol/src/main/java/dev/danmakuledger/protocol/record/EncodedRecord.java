package dev.danmakuledger.protocol.record;

import dev.danmakuledger.merkle.hash.Sha256;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;

/**
 * A record's fields encoded once (docs/canonical-record.md): its content encoding, from which both
 * its content hash and its canonical bytes at any index and clock are made without encoding the
 * strings again. The canonical bytes are the version byte, the key, the content encoding after its
 * version byte, then hlc and index (and, for a version 2 record, its blind), so they are assembled
 * by copying.
 */
public final class EncodedRecord {
  private static final HexFormat HEX = HexFormat.of();

  private final byte[] key;
  private final byte[] content;
  private final Blind blind;

  private EncodedRecord(byte[] key, byte[] content, Blind blind) {
    this.key = key;
    this.content = content;
    this.blind = blind;
  }

  /** Encodes the key and content of a valid record (and keeps its blind, if any). */
  public static EncodedRecord of(DanmakuRecord record) {
    return new EncodedRecord(
        record.key().toString().getBytes(StandardCharsets.UTF_8),
        CanonicalRecord.encodeContent(record),
        record.blind());
  }

  /** The same record blinded by {@code blind}: its canonical bytes are version 2. */
  public EncodedRecord blinded(Blind blind) {
    if (blind == null) {
      throw new IllegalArgumentException("blind: got null, want a value");
    }
    return new EncodedRecord(key, content, blind);
  }

  /** The same as {@link DanmakuRecord#contentHash()}. */
  public String contentHash() {
    return hashOf(content);
  }

  /** The lowercase hex SHA-256 of a content encoding: the content hash. */
  static String hashOf(byte[] contentEncoding) {
    return HEX.formatHex(Sha256.fresh().digest(contentEncoding));
  }

  /**
   * The same bytes as {@link DanmakuRecord#canonicalBytesAt canonicalBytesAt(index, hlc)}.
   *
   * @throws InvalidRecordException if {@code index} or {@code hlc} is negative
   */
  public byte[] canonicalAt(long index, long hlc) {
    CanonicalRecord.checkPlace(index, hlc);
    int tail = blind == null ? 0 : Blind.BYTES;
    ByteBuffer out = ByteBuffer.allocate(1 + 4 + key.length + content.length - 1 + 8 + 8 + tail);
    out.put(blind == null ? CanonicalRecord.VERSION_1 : CanonicalRecord.VERSION_2);
    out.putInt(key.length);
    out.put(key);
    out.put(content, 1, content.length - 1);
    out.putLong(hlc);
    out.putLong(index);
    if (blind != null) {
      out.putLong(blind.high());
      out.putLong(blind.low());
    }
    return out.array();
  }
}
