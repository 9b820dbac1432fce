package dev.danmakuledger.merkle.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.merkle.tiles.BundleWriter;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.merkle.tiles.TileWriter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sync server and a device in miniature, for audit bundle tests: device {@code kiosk-01} signs a
 * log of 10 canonical records (docs/canonical-record.md) and the server cosigns its checkpoint;
 * room {@code r1} numbers them in a room log of 300 entries (every third a tombstone) written with
 * {@link TileWriter} and {@link BundleWriter}, so proofs come from the tiles as the server's do.
 */
final class BundleFixture {
  static final String ROOM = "r1";
  static final String DEVICE = "kiosk-01";
  static final long ROOM_SIZE = 300;
  static final int DEVICE_SIZE = 10;
  private static final SecureRandom RANDOM = new SecureRandom();

  final NoteSigner logKey = NoteSigner.generate("danmaku-ledger/server-log/s1", RANDOM);
  final CosignatureSigner cosigner = CosignatureSigner.generate("danmaku-ledger/server/s1", RANDOM);
  final NoteSigner deviceKey = NoteSigner.generate("danmaku-ledger/device/" + DEVICE, RANDOM);

  /** Room entries to write in place of the regular ones, by seq. */
  final Map<Long, byte[]> entryOverrides = new HashMap<>();

  /**
   * The record the room log numbers at {@code seq}: seqs 1, 2, 4, 5, 7, ... are device indices 0,
   * 1, 2, 3, 4, ...
   */
  static int deviceIndexOf(long seq) {
    return (int) (seq - 1 - seq / 3);
  }

  static boolean isMessage(long seq) {
    return seq % 3 != 0 && deviceIndexOf(seq) < DEVICE_SIZE;
  }

  /** The canonical version 1 bytes of record {@code index} of device {@code device}. */
  static byte[] record(String device, long index, String text) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(1);
    string(out, device + ":alice:1732953600000:" + String.format("%016x", index));
    string(out, device);
    string(out, ROOM);
    string(out, "alice");
    string(out, text);
    out.write(0);
    out.write(1);
    out.writeBytes(ByteBuffer.allocate(4).putInt(0xffffff).array());
    out.write(25);
    out.writeBytes(ByteBuffer.allocate(8).putLong(1732953600000L << 16).array());
    out.writeBytes(ByteBuffer.allocate(8).putLong(index).array());
    return out.toByteArray();
  }

  static byte[] record(long index) {
    return record(DEVICE, index, "hello " + index);
  }

  static byte[] messageEntry(long seq, String device, long index, byte[] record, String key) {
    return ("v1 "
            + seq
            + " M "
            + (253671505920020497L + seq)
            + " "
            + device
            + " "
            + index
            + " "
            + HexFormat.of().formatHex(Rfc6962.leafHash(record))
            + " "
            + key)
        .getBytes(StandardCharsets.US_ASCII);
  }

  static String key(String device, long index) {
    return device + ":alice:1732953600000:" + String.format("%016x", index);
  }

  byte[] entry(long seq) {
    if (entryOverrides.containsKey(seq)) {
      return entryOverrides.get(seq);
    }
    if (!isMessage(seq)) {
      return ("v1 " + seq + " T lost-by-redis").getBytes(StandardCharsets.US_ASCII);
    }
    long i = deviceIndexOf(seq);
    return messageEntry(seq, DEVICE, i, record(i), key(DEVICE, i));
  }

  String serverKeysJson() {
    return "{\"logVerifierKey\": \""
        + logKey.verifierKey()
        + "\", \"cosignerVerifierKey\": \""
        + cosigner.verifierKey()
        + "\"}";
  }

  /** The bundle of {@code seq} (a message seq) as a mutable JSON tree. */
  Map<String, Object> bundle(long seq) {
    try {
      Map<String, byte[]> files = new HashMap<>();
      TileWriter tiles = TileWriter.empty();
      BundleWriter bundles = BundleWriter.empty();
      for (long s = 1; s <= ROOM_SIZE; s++) {
        byte[] e = entry(s);
        for (Tile t : tiles.append(Rfc6962.leafHash(e))) {
          files.put(t.id().path(), t.data());
        }
        bundles.append(e).ifPresent(b -> files.put(b.id().entriesPath(), b.data()));
      }
      for (Tile t : tiles.partialTiles()) {
        files.put(t.id().path(), t.data());
      }
      TileReader reader =
          new TileReader(
              path -> {
                byte[] b = files.get(path);
                if (b == null) {
                  throw new NoSuchFileException(path);
                }
                return b;
              },
              ROOM_SIZE);
      String roomNote =
          Checkpoints.sign(
              new Checkpoint("danmaku-ledger/room/" + ROOM, ROOM_SIZE, tiles.root()), logKey);

      CompactRange range = CompactRange.empty();
      Map<NodeId, byte[]> nodes = new HashMap<>();
      for (int i = 0; i < DEVICE_SIZE; i++) {
        range.append(Rfc6962.leafHash(record(i)), nodes::put);
      }
      String deviceNote =
          cosigner.cosign(
              Checkpoints.sign(
                  new Checkpoint("danmaku-ledger/device/" + DEVICE, DEVICE_SIZE, range.root()),
                  deviceKey),
              1764578400L);

      int index = deviceIndexOf(seq);
      Map<String, Object> b = new LinkedHashMap<>();
      b.put("format", "danmaku-ledger-audit-bundle/v1");
      b.put("room", ROOM);
      b.put("seq", seq);
      b.put("entry", Base64.getEncoder().encodeToString(entry(seq)));
      b.put("roomCheckpoint", roomNote);
      b.put("roomInclusion", inclusion(seq - 1, ROOM_SIZE, reader.inclusionProof(seq - 1)));
      b.put("deviceId", DEVICE);
      b.put("record", Base64.getEncoder().encodeToString(record(index)));
      b.put(
          "deviceInclusion",
          inclusion(index, DEVICE_SIZE, Proofs.inclusion(index, DEVICE_SIZE, nodes::get)));
      b.put("deviceCheckpoint", deviceNote);
      return b;
    } catch (IOException | dev.danmakuledger.merkle.VerificationException e) {
      throw new IllegalStateException(e);
    }
  }

  static Map<String, Object> inclusion(long index, long size, List<byte[]> proof) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("index", index);
    m.put("size", size);
    List<String> hex = new ArrayList<>();
    for (byte[] h : proof) {
      hex.add(HexFormat.of().formatHex(h));
    }
    m.put("proofHex", hex);
    return m;
  }

  static String json(Object tree) {
    try {
      return new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(tree);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void string(ByteArrayOutputStream out, String s) {
    byte[] b = s.getBytes(StandardCharsets.UTF_8);
    out.writeBytes(ByteBuffer.allocate(4).putInt(b.length).array());
    out.writeBytes(b);
  }

  /**
   * Writes {@code keys.json}, {@code device.vkey} and {@code bundle-7.json} (the bundle of seq 7)
   * into the directory {@code args[0]}, for trying {@code tlog verify-bundle} by hand.
   */
  public static void main(String[] args) throws IOException {
    java.nio.file.Path dir = java.nio.file.Path.of(args[0]);
    BundleFixture fx = new BundleFixture();
    java.nio.file.Files.writeString(dir.resolve("keys.json"), fx.serverKeysJson() + "\n");
    java.nio.file.Files.writeString(dir.resolve("device.vkey"), fx.deviceKey.verifierKey() + "\n");
    java.nio.file.Files.writeString(dir.resolve("bundle-7.json"), json(fx.bundle(7)) + "\n");
  }
}
