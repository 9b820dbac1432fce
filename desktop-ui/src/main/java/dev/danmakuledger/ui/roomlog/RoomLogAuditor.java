package dev.danmakuledger.ui.roomlog;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.tiles.Tile;
import dev.danmakuledger.merkle.tiles.TileException;
import dev.danmakuledger.merkle.tiles.TileId;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.merkle.tiles.TileSource;
import dev.danmakuledger.merkle.tiles.TileWriter;
import dev.danmakuledger.merkle.tiles.Tiles;
import dev.danmakuledger.ui.client.AdminClient;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.ServerKeys;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.NoSuchFileException;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Audits one room log over HTTP (docs/room-log.md): verifies the checkpoint at {@code
 * /v1/rooms/{room}/log/checkpoint} with the server's log key and the room's origin, recomputes its
 * root from the tiles ({@link TileReader}, the code the server publishes with), and proves it
 * consistent with the last checkpoint verified (RFC 9162 §2.1.4, proof built from the tiles). The
 * root is recomputed from the leaf hashes of every level-0 tile, which costs one hash per leaf and
 * audit (a second for a million-entry room). Full tiles never change, so they are kept in memory
 * and fetched once; partial tiles and the checkpoint are fetched at every audit. Blocking: call off
 * the FX thread, one audit at a time per auditor.
 */
public final class RoomLogAuditor {
  /** Origin prefix of room logs (docs/room-log.md). */
  public static final String ORIGIN_PREFIX = "danmaku-ledger/room/";

  private static final int MAX_CACHED_TILES = 4096;
  private static final HexFormat HEX = HexFormat.of();

  /** The server's keys as the auditor uses them; the cosigner is null if it did not parse. */
  public record Keys(NoteVerifier log, CosignatureVerifier cosigner) {
    /**
     * Parses the served keys.
     *
     * @throws IllegalArgumentException if the log key is not a valid C2SP vkey
     */
    public static Keys of(ServerKeys k) {
      NoteVerifier log = NoteVerifier.parse(k.logVerifierKey());
      CosignatureVerifier cosigner;
      try {
        cosigner = CosignatureVerifier.parse(k.cosignerVerifierKey());
      } catch (IllegalArgumentException e) {
        cosigner = null;
      }
      return new Keys(log, cosigner);
    }
  }

  /**
   * One audit's finding.
   *
   * @param cosignedAt POSIX seconds of the server's cosignature on the checkpoint, or -1
   */
  public record Outcome(
      RoomLogStatus status,
      long size,
      String rootHex,
      String note,
      long cosignedAt,
      String detail) {
    static Outcome failed(RoomLogStatus status, String detail) {
      return new Outcome(status, -1, null, null, -1, detail);
    }
  }

  private final AdminClient client;
  private final Map<String, byte[]> fullTiles = new ConcurrentHashMap<>();

  public RoomLogAuditor(AdminClient client) {
    this.client = client;
  }

  /**
   * Audits {@code room} against {@code last} (null before the first verified checkpoint). Tiles
   * that do not add up are fetched once more without the cache: a server that rewrote a full tile
   * (a split view) must be judged on what it serves now, not on a mix of old and new tiles.
   */
  public Outcome audit(String room, Keys keys, RoomTrust last) {
    boolean cached = fullTiles.keySet().stream().anyMatch(k -> k.startsWith(room + "/"));
    Outcome o = auditOnce(room, keys, last);
    return o.status() == RoomLogStatus.BAD_TILES && cached ? auditOnce(room, keys, last) : o;
  }

  private Outcome auditOnce(String room, Keys keys, RoomTrust last) {
    byte[] noteBytes;
    try {
      noteBytes = client.roomLogFile(room, "checkpoint", SignedNote.MAX_NOTE_BYTES);
    } catch (ApiException e) {
      return Outcome.failed(RoomLogStatus.UNAVAILABLE, "checkpoint: " + e.plainMessage());
    }
    String note;
    Checkpoint cp;
    try {
      note = utf8(noteBytes);
      cp = Checkpoints.open(note, ORIGIN_PREFIX + room, keys.log());
    } catch (CharacterCodingException e) {
      return Outcome.failed(RoomLogStatus.BAD_SIGNATURE, "checkpoint: not valid UTF-8");
    } catch (VerificationException e) {
      return Outcome.failed(RoomLogStatus.BAD_SIGNATURE, "checkpoint: " + e.getMessage());
    }
    String rootHex = HEX.formatHex(cp.root());
    long cosignedAt = cosignedAt(note, cp, keys);
    TileReader reader = new TileReader(source(room), cp.size());
    try {
      byte[] fromTiles = rebuiltRoot(reader, cp.size());
      if (!MessageDigest.isEqual(fromTiles, cp.root())) {
        forget(room);
        return new Outcome(
            RoomLogStatus.BAD_TILES,
            cp.size(),
            rootHex,
            note,
            cosignedAt,
            "the tiles lead to root "
                + HEX.formatHex(fromTiles)
                + ", the checkpoint says "
                + rootHex);
      }
      if (last != null) {
        String split = splitFrom(last, cp, reader);
        if (split != null) {
          return new Outcome(RoomLogStatus.SPLIT_VIEW, cp.size(), rootHex, note, cosignedAt, split);
        }
      }
    } catch (VerificationException e) {
      forget(room);
      return new Outcome(
          RoomLogStatus.BAD_TILES, cp.size(), rootHex, note, cosignedAt, e.getMessage());
    } catch (IOException e) {
      return Outcome.failed(RoomLogStatus.UNAVAILABLE, "tiles: " + e.getMessage());
    }
    String how =
        last == null
            ? "root recomputed from the tiles"
            : last.size() == cp.size()
                ? "root recomputed from the tiles; same as verified before"
                : "root recomputed from the tiles; consistent with size " + last.size();
    return new Outcome(RoomLogStatus.VERIFIED, cp.size(), rootHex, note, cosignedAt, how);
  }

  /**
   * Rebuilds every tile above level 0 from the level-0 tiles' leaf hashes, checks each against the
   * served tile byte for byte, and returns the root of the rebuilt tree. Reading only the hashes a
   * root needs would leave most tiles unchecked; this way every served tile is part of the one tree
   * the checkpoint signs, so later proofs read from them are honest.
   */
  private static byte[] rebuiltRoot(TileReader reader, long size)
      throws IOException, VerificationException {
    TileWriter rebuilt = TileWriter.empty();
    for (long i = 0; ; i++) {
      TileId id = Tiles.tileAt(size, 0, i);
      if (id == null) {
        break;
      }
      Tile level0 = reader.tile(0, i);
      for (int j = 0; j < id.width(); j++) {
        for (Tile done : rebuilt.append(level0.hash(j))) {
          compare(reader, done);
        }
      }
    }
    for (Tile partial : rebuilt.partialTiles()) {
      compare(reader, partial);
    }
    return rebuilt.root();
  }

  private static void compare(TileReader reader, Tile want) throws IOException, TileException {
    if (!reader.tile(want.id().level(), want.id().index()).equals(want)) {
      throw new TileException(
          want.id().path() + " differs from the tile rebuilt from the level-0 tiles");
    }
  }

  /** Why {@code cp} is not an extension of {@code last}, or null if it is. */
  private static String splitFrom(RoomTrust last, Checkpoint cp, TileReader reader)
      throws IOException, VerificationException {
    byte[] lastRoot = HEX.parseHex(last.rootHex());
    if (cp.size() < last.size()) {
      return "size " + cp.size() + " is smaller than size " + last.size() + " verified before";
    }
    if (cp.size() == last.size()) {
      return MessageDigest.isEqual(lastRoot, cp.root())
          ? null
          : "size "
              + cp.size()
              + " has root "
              + HEX.formatHex(cp.root())
              + ", verified before as "
              + last.rootHex();
    }
    if (last.size() == 0) {
      return null;
    }
    List<byte[]> proof = reader.consistencyProof(last.size());
    try {
      ConsistencyProof.verify(last.size(), cp.size(), lastRoot, cp.root(), proof);
      return null;
    } catch (VerificationException e) {
      return "size "
          + cp.size()
          + " is not an extension of size "
          + last.size()
          + " verified before: "
          + e.getMessage();
    }
  }

  private static long cosignedAt(String note, Checkpoint cp, Keys keys) {
    if (keys.cosigner() == null) {
      return -1;
    }
    try {
      return Cosignatures.open(note, cp.origin(), keys.cosigner()).timestamp();
    } catch (VerificationException e) {
      return -1;
    }
  }

  private TileSource source(String room) {
    return path -> {
      boolean full = !path.contains(".p/");
      String key = room + "/" + path;
      byte[] cached = full ? fullTiles.get(key) : null;
      if (cached != null) {
        return cached;
      }
      long max =
          path.startsWith("tile/entries/")
              ? TileId.FULL_WIDTH * (2L + 0xffff)
              : (long) TileId.FULL_WIDTH * Rfc6962.HASH_SIZE;
      byte[] b;
      try {
        b = client.roomLogFile(room, path, max);
      } catch (ApiException e) {
        if (e.kind() == ApiException.Kind.NOT_FOUND) {
          throw new NoSuchFileException(path);
        }
        throw new IOException(e.plainMessage(), e);
      }
      if (full && b.length == TileId.FULL_WIDTH * Rfc6962.HASH_SIZE) {
        if (fullTiles.size() >= MAX_CACHED_TILES) {
          fullTiles.clear();
        }
        fullTiles.put(key, b);
      }
      return b;
    };
  }

  /** Drops the cached tiles of a room whose tiles did not add up, so the next audit refetches. */
  private void forget(String room) {
    fullTiles.keySet().removeIf(k -> k.startsWith(room + "/"));
  }

  private static String utf8(byte[] b) throws CharacterCodingException {
    return StandardCharsets.UTF_8
        .newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(java.nio.ByteBuffer.wrap(b))
        .toString();
  }
}
