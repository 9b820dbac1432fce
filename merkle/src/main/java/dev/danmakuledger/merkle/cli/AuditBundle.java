package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * An audit bundle, {@code danmaku-ledger-audit-bundle/v1} (docs/room-log.md, "Audit bundle"): one
 * confirmed message's room-log entry with its inclusion proof and room checkpoint, and the device
 * record it numbers with its inclusion proof and cosigned device checkpoint. Parsing checks the
 * shape only (every member present, typed, bounded, no others); {@link VerifyBundle} checks what it
 * proves.
 */
record AuditBundle(
    String room,
    long seq,
    byte[] entry,
    String roomCheckpoint,
    Inclusion roomInclusion,
    String deviceId,
    byte[] record,
    Inclusion deviceInclusion,
    String deviceCheckpoint) {
  static final String FORMAT = "danmaku-ledger-audit-bundle/v1";

  /** An RFC 9162 §2.1.3 inclusion proof of leaf {@code index} in the tree of {@code size}. */
  record Inclusion(long index, long size, List<byte[]> proof) {}

  /** A tree of fewer than 2^63 leaves has proofs of at most 63 hashes. */
  static final int MAX_PROOF_HASHES = 63;

  private static final Pattern ROOM = Pattern.compile("[A-Za-z0-9_.-]{1,64}");
  private static final Set<String> MEMBERS =
      Set.of(
          "format",
          "room",
          "seq",
          "entry",
          "roomCheckpoint",
          "roomInclusion",
          "deviceId",
          "record",
          "deviceInclusion",
          "deviceCheckpoint");
  private static final Set<String> INCLUSION = Set.of("index", "size", "proofHex");

  /**
   * Parses the bundle JSON.
   *
   * @throws IllegalArgumentException saying which member is malformed
   */
  static AuditBundle parse(String json) {
    JsonObject o = JsonObject.of("bundle", Json.parse(json), MEMBERS);
    if (!o.string("format").equals(FORMAT)) {
      throw new IllegalArgumentException(
          "bundle.format: got \"" + o.string("format") + "\", want " + FORMAT);
    }
    String room = o.string("room");
    if (!ROOM.matcher(room).matches()) {
      throw new IllegalArgumentException("bundle.room: want [A-Za-z0-9_.-]{1,64}");
    }
    return new AuditBundle(
        room,
        o.nonNegative("seq"),
        base64(o, "entry"),
        o.string("roomCheckpoint"),
        inclusion(o.member("roomInclusion"), "bundle.roomInclusion"),
        o.string("deviceId"),
        base64(o, "record"),
        inclusion(o.member("deviceInclusion"), "bundle.deviceInclusion"),
        o.string("deviceCheckpoint"));
  }

  private static Inclusion inclusion(Object value, String what) {
    JsonObject o = JsonObject.of(what, value, INCLUSION);
    List<String> hex = o.strings("proofHex", MAX_PROOF_HASHES);
    List<byte[]> proof =
        hex.stream()
            .map(
                h -> {
                  if (h.length() != 2 * Rfc6962.HASH_SIZE) {
                    throw new IllegalArgumentException(
                        what + ".proofHex: want 64 hex digits per hash");
                  }
                  try {
                    return HexFormat.of().parseHex(h);
                  } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException(what + ".proofHex: invalid hex", e);
                  }
                })
            .toList();
    return new Inclusion(o.nonNegative("index"), o.nonNegative("size"), proof);
  }

  /** Strict standard base64: padded and canonical. */
  private static byte[] base64(JsonObject o, String name) {
    String s = o.string(name);
    try {
      byte[] b = Base64.getDecoder().decode(s);
      if (Base64.getEncoder().encodeToString(b).equals(s)) {
        return b;
      }
    } catch (IllegalArgumentException e) {
      // fall through to the one message below
    }
    throw new IllegalArgumentException("bundle." + name + ": want canonical padded base64");
  }
}
