package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InvalidProofException;
import dev.danmakuledger.merkle.tiles.DirectoryTileSource;
import dev.danmakuledger.merkle.tiles.LogAudit;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.merkle.tiles.TileSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;

/**
 * {@code tlog verify-room}: audits a room log (docs/room-log.md) mirrored to a directory in the
 * C2SP tlog-tiles layout, offline. See docs/tlog.md for what it checks.
 */
final class VerifyRoom {
  /** Origin prefix of room logs (docs/room-log.md). */
  static final String ROOM_ORIGIN_PREFIX = "danmaku-ledger/room/";

  /** Reads a bounded UTF-8 input file, failing with a usage error. */
  @FunctionalInterface
  interface TextFiles {
    String read(String file) throws UsageException;
  }

  private final TextFiles files;
  private final PrintStream out;

  VerifyRoom(TextFiles files, PrintStream out) {
    this.files = files;
    this.out = out;
  }

  /**
   * Audits a mirrored room log (docs/room-log.md): the checkpoint signature, the root from the
   * tiles and from the entries, every tile against the entries, the numbering of every entry, and
   * consistency with an earlier checkpoint.
   */
  void run(List<String> rest) throws UsageException, VerificationException {
    Args a =
        Args.parse(rest, Set.of("vkey"), Set.of("origin", "previous", "cosigner"), List.of("DIR"));
    NoteVerifier verifier = Tlog.parseVerifier(a.option("vkey"));
    Path dir = Path.of(a.operand(0));
    if (!Files.isDirectory(dir)) {
      throw new UsageException(dir + " is not a directory");
    }
    String note = files.read(dir.resolve("checkpoint").toString());
    Checkpoint cp = openRoomCheckpoint(note, a, verifier);
    String cosigned = "";
    if (a.option("cosigner") != null) {
      CosignatureVerifier cosigner;
      try {
        cosigner = CosignatureVerifier.parse(a.option("cosigner"));
      } catch (IllegalArgumentException e) {
        throw new UsageException("--cosigner: " + e.getMessage(), e);
      }
      long t = Cosignatures.open(note, cp.origin(), cosigner).timestamp();
      cosigned = ", cosigned by " + cosigner.name() + " at " + Instant.ofEpochSecond(t);
    }
    Checkpoint previous = null;
    if (a.option("previous") != null) {
      previous = Checkpoints.open(files.read(a.option("previous")), cp.origin(), verifier);
      if (previous.size() > cp.size()) {
        throw new InvalidProofException(
            "--previous has size " + previous.size() + ", larger than the mirror's " + cp.size());
      }
    }
    RoomEntryNumbering numbering = new RoomEntryNumbering();
    TileSource source = new DirectoryTileSource(dir);
    LogAudit.Result result;
    try {
      result = LogAudit.audit(source, cp.size(), cp.root(), numbering);
      if (previous != null) {
        List<byte[]> proof = new TileReader(source, cp.size()).consistencyProof(previous.size());
        ConsistencyProof.verify(previous.size(), cp.size(), previous.root(), cp.root(), proof);
      }
    } catch (IOException e) {
      throw new UsageException("cannot read the mirror: " + e.getMessage(), e);
    }
    out.println(cp.origin() + " " + cp.size() + " " + HexFormat.of().formatHex(cp.root()));
    out.println(
        result.entries()
            + " entries ("
            + numbering.messages()
            + " messages, "
            + numbering.tombstones()
            + " tombstones), "
            + result.tilesCompared()
            + " tiles match the entries"
            + (previous == null ? "" : ", consistent with size " + previous.size())
            + cosigned);
  }

  private static Checkpoint openRoomCheckpoint(String note, Args a, NoteVerifier verifier)
      throws UsageException, VerificationException {
    if (a.option("origin") != null) {
      return Checkpoints.open(note, a.option("origin"), verifier);
    }
    Checkpoint cp;
    try {
      cp = Checkpoint.parse(SignedNote.open(note, verifier));
    } catch (IllegalArgumentException e) {
      throw new UsageException("checkpoint: signed note is not a checkpoint: " + e.getMessage(), e);
    }
    if (!cp.origin().startsWith(ROOM_ORIGIN_PREFIX)) {
      throw new NoteVerificationException(
          NoteVerificationException.Reason.WRONG_ORIGIN,
          "origin: got \"" + cp.origin() + "\", want " + ROOM_ORIGIN_PREFIX + "<room>");
    }
    return cp;
  }
}
