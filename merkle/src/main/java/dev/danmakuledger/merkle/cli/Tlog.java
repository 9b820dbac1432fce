package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerificationException;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.InvalidProofException;
import dev.danmakuledger.merkle.proof.Proofs;
import dev.danmakuledger.merkle.tiles.DirectoryTileSource;
import dev.danmakuledger.merkle.tiles.LogAudit;
import dev.danmakuledger.merkle.tiles.TileReader;
import dev.danmakuledger.merkle.tiles.TileSource;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code tlog}: an auditor's command line over RFC 6962 trees and C2SP checkpoints. Exit status 0
 * means ok/valid, 1 means a proof or note did not verify, 2 means a usage or input error.
 */
public final class Tlog {
  static final int OK = 0;
  static final int INVALID = 1;
  static final int USAGE = 2;

  /** Default cap on any input file, in bytes. */
  static final long DEFAULT_MAX_INPUT_BYTES = 256L << 20;

  private static final HexFormat HEX = HexFormat.of();

  /** Origin prefix of room logs (docs/room-log.md). */
  static final String ROOM_ORIGIN_PREFIX = "danmaku-ledger/room/";

  static final String USAGE_TEXT =
      """
      usage: tlog <command> [options] [operands]

      Leaves files hold one leaf per line, hex-encoded (an empty line is the empty leaf).
      PROOF files hold one hex hash per line. Hashes print as lowercase hex, one per line.
      Exit status: 0 ok/valid, 1 invalid, 2 usage or input error.

      commands:
        root LEAVES                                   print the root of all leaves
        inclusion --index I LEAVES                    audit path for leaf I in the full tree
        consistency --old M LEAVES                    proof from size M to the full size
        verify-inclusion --index I --size N (--leaf-hex DATA | --leaf-hash HASH) --root HEX PROOF
                                                      DATA is the leaf's data in hex, HASH its
                                                      RFC 6962 leaf hash (e.g. from a tile)
        verify-consistency --old M --new N --old-root HEX --new-root HEX PROOF
        keygen --name NAME --out DIR                  write DIR/<NAME, '/' etc. %-encoded>.key
                                                      (mode 0600), print the verifier key
        checkpoint --key KEYFILE --origin ORIGIN LEAVES   print a signed checkpoint note
        verify-checkpoint --vkey VERIFIER_KEY [--origin ORIGIN] NOTE
                                                      print "origin size root-hex"
        verify-room --vkey VERIFIER_KEY [--origin ORIGIN] [--previous NOTE] DIR
                                                      audit a mirrored room log (DIR/checkpoint,
                                                      DIR/tile/...): signature, tiles, entries,
                                                      numbering, consistency with NOTE
      """;

  private final PrintStream out;
  private final PrintStream err;
  private final long maxInputBytes;
  private final SecureRandom random;

  Tlog(PrintStream out, PrintStream err, long maxInputBytes, SecureRandom random) {
    this.out = out;
    this.err = err;
    this.maxInputBytes = maxInputBytes;
    this.random = random;
  }

  public static void main(String[] args) {
    PrintStream stdout = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    PrintStream stderr = new PrintStream(System.err, true, StandardCharsets.UTF_8);
    int status = new Tlog(stdout, stderr, DEFAULT_MAX_INPUT_BYTES, new SecureRandom()).run(args);
    stdout.flush();
    System.exit(status);
  }

  /** Runs one command and returns the exit status. */
  int run(String... argv) {
    if (argv.length == 0) {
      err.print(USAGE_TEXT);
      return USAGE;
    }
    List<String> all = Arrays.asList(argv);
    if (all.contains("--help") || all.contains("-h") || argv[0].equals("help")) {
      out.print(USAGE_TEXT);
      return OK;
    }
    List<String> rest = all.subList(1, all.size());
    try {
      switch (argv[0]) {
        case "root" -> root(rest);
        case "inclusion" -> inclusion(rest);
        case "consistency" -> consistency(rest);
        case "verify-inclusion" -> verifyInclusion(rest);
        case "verify-consistency" -> verifyConsistency(rest);
        case "keygen" -> keygen(rest);
        case "checkpoint" -> checkpoint(rest);
        case "verify-checkpoint" -> verifyCheckpoint(rest);
        case "verify-room" -> verifyRoom(rest);
        default -> throw new UsageException("unknown command \"" + argv[0] + "\"");
      }
      return OK;
    } catch (UsageException e) {
      err.println("tlog " + argv[0] + ": " + e.getMessage());
      err.println("run 'tlog --help' for usage");
      return USAGE;
    } catch (VerificationException e) {
      err.println("tlog " + argv[0] + ": invalid: " + e.getMessage());
      return INVALID;
    }
  }

  private void root(List<String> rest) throws UsageException {
    Args a = Args.parse(rest, Set.of(), Set.of(), List.of("LEAVES"));
    out.println(HEX.formatHex(Tree.of(readLeaves(a.operand(0))).root()));
  }

  private void inclusion(List<String> rest) throws UsageException {
    Args a = Args.parse(rest, Set.of("index"), Set.of(), List.of("LEAVES"));
    long index = a.nonNegative("index");
    Tree t = Tree.of(readLeaves(a.operand(0)));
    if (index >= t.size()) {
      throw new UsageException(
          "--index: got " + index + ", want 0 <= index < tree size " + t.size());
    }
    printHashes(Proofs.inclusion(index, t.size(), t::hash));
  }

  private void consistency(List<String> rest) throws UsageException {
    Args a = Args.parse(rest, Set.of("old"), Set.of(), List.of("LEAVES"));
    long old = a.nonNegative("old");
    Tree t = Tree.of(readLeaves(a.operand(0)));
    if (old > t.size()) {
      throw new UsageException("--old: got " + old + ", want <= tree size " + t.size());
    }
    printHashes(Proofs.consistency(old, t.size(), t::hash));
  }

  private void verifyInclusion(List<String> rest) throws UsageException, VerificationException {
    Args a =
        Args.parse(
            rest,
            Set.of("index", "size", "root"),
            Set.of("leaf-hex", "leaf-hash"),
            List.of("PROOF"));
    long index = a.nonNegative("index");
    long size = a.nonNegative("size");
    byte[] leafHash = leafHash(a);
    byte[] root = hex("--root", a.option("root"), Rfc6962.HASH_SIZE);
    List<byte[]> proof = readProof(a.operand(0));
    InclusionProof.verify(index, size, leafHash, proof, root);
    out.println("ok");
  }

  /**
   * The leaf hash from {@code --leaf-hex} (the leaf's data, hashed here) or {@code --leaf-hash}
   * (already hashed, as an auditor reads it from a level-0 tile); exactly one must be given.
   */
  private static byte[] leafHash(Args a) throws UsageException {
    String data = a.option("leaf-hex");
    String hash = a.option("leaf-hash");
    if ((data == null) == (hash == null)) {
      throw new UsageException("want exactly one of --leaf-hex DATA or --leaf-hash HASH");
    }
    return data != null
        ? Rfc6962.leafHash(hex("--leaf-hex", data, -1))
        : hex("--leaf-hash", hash, Rfc6962.HASH_SIZE);
  }

  private void verifyConsistency(List<String> rest) throws UsageException, VerificationException {
    Args a =
        Args.parse(rest, Set.of("old", "new", "old-root", "new-root"), Set.of(), List.of("PROOF"));
    long old = a.nonNegative("old");
    long size = a.nonNegative("new");
    byte[] oldRoot = hex("--old-root", a.option("old-root"), Rfc6962.HASH_SIZE);
    byte[] newRoot = hex("--new-root", a.option("new-root"), Rfc6962.HASH_SIZE);
    List<byte[]> proof = readProof(a.operand(0));
    ConsistencyProof.verify(old, size, oldRoot, newRoot, proof);
    out.println("ok");
  }

  private void keygen(List<String> rest) throws UsageException {
    Args a = Args.parse(rest, Set.of("name", "out"), Set.of(), List.of());
    String name = a.option("name");
    NoteSigner signer;
    String fileName;
    try {
      signer = NoteSigner.generate(name, random);
      fileName = KeyFileName.of(name);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--name: " + e.getMessage(), e);
    }
    Path dir = Path.of(a.option("out"));
    if (!Files.isDirectory(dir)) {
      throw new UsageException("--out: " + dir + " is not a directory");
    }
    Path file = dir.resolve(fileName);
    try {
      try {
        Files.createFile(
            file,
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      } catch (UnsupportedOperationException e) {
        Files.createFile(file);
      }
      Files.writeString(file, signer.privateKey() + "\n", StandardCharsets.UTF_8);
    } catch (FileAlreadyExistsException e) {
      throw new UsageException(file + " already exists; refusing to overwrite a key", e);
    } catch (IOException e) {
      throw new UsageException("cannot write " + file + ": " + e.getMessage(), e);
    }
    err.println("tlog keygen: private key written to " + file);
    out.println(signer.verifierKey());
  }

  private void checkpoint(List<String> rest) throws UsageException {
    Args a = Args.parse(rest, Set.of("key", "origin"), Set.of(), List.of("LEAVES"));
    NoteSigner signer;
    try {
      signer = NoteSigner.fromPrivateKey(readText(a.option("key")).strip());
    } catch (IllegalArgumentException e) {
      throw new UsageException("--key: " + e.getMessage(), e);
    }
    Tree t = Tree.of(readLeaves(a.operand(0)));
    Checkpoint cp;
    try {
      cp = new Checkpoint(a.option("origin"), t.size(), t.root());
    } catch (IllegalArgumentException e) {
      throw new UsageException("--origin: " + e.getMessage(), e);
    }
    out.print(Checkpoints.sign(cp, signer));
  }

  private void verifyCheckpoint(List<String> rest) throws UsageException, VerificationException {
    Args a = Args.parse(rest, Set.of("vkey"), Set.of("origin"), List.of("NOTE"));
    NoteVerifier verifier;
    try {
      verifier = NoteVerifier.parse(a.option("vkey"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--vkey: " + e.getMessage(), e);
    }
    String note = readText(a.operand(0));
    Checkpoint cp;
    if (a.option("origin") != null) {
      cp = Checkpoints.open(note, a.option("origin"), verifier);
    } else {
      String text = SignedNote.open(note, verifier);
      try {
        cp = Checkpoint.parse(text);
      } catch (IllegalArgumentException e) {
        throw new UsageException("signed note is not a checkpoint: " + e.getMessage(), e);
      }
    }
    out.println(cp.origin() + " " + cp.size() + " " + HEX.formatHex(cp.root()));
  }

  /**
   * Audits a mirrored room log (docs/room-log.md): the checkpoint signature, the root from the
   * tiles and from the entries, every tile against the entries, the numbering of every entry, and
   * consistency with an earlier checkpoint.
   */
  private void verifyRoom(List<String> rest) throws UsageException, VerificationException {
    Args a = Args.parse(rest, Set.of("vkey"), Set.of("origin", "previous"), List.of("DIR"));
    NoteVerifier verifier;
    try {
      verifier = NoteVerifier.parse(a.option("vkey"));
    } catch (IllegalArgumentException e) {
      throw new UsageException("--vkey: " + e.getMessage(), e);
    }
    Path dir = Path.of(a.operand(0));
    if (!Files.isDirectory(dir)) {
      throw new UsageException(dir + " is not a directory");
    }
    Checkpoint cp = openRoomCheckpoint(readText(dir.resolve("checkpoint").toString()), a, verifier);
    Checkpoint previous = null;
    if (a.option("previous") != null) {
      previous = Checkpoints.open(readText(a.option("previous")), cp.origin(), verifier);
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
    out.println(cp.origin() + " " + cp.size() + " " + HEX.formatHex(cp.root()));
    out.println(
        result.entries()
            + " entries ("
            + numbering.messages()
            + " messages, "
            + numbering.tombstones()
            + " tombstones), "
            + result.tilesCompared()
            + " tiles match the entries"
            + (previous == null ? "" : ", consistent with size " + previous.size()));
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

  private void printHashes(List<byte[]> hashes) {
    for (byte[] h : hashes) {
      out.println(HEX.formatHex(h));
    }
  }

  private List<byte[]> readLeaves(String file) throws UsageException {
    List<String> lines = lines(readText(file));
    List<byte[]> leaves = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      leaves.add(hex(file + " line " + (i + 1), lines.get(i), -1));
    }
    return leaves;
  }

  private List<byte[]> readProof(String file) throws UsageException {
    List<String> lines = lines(readText(file));
    List<byte[]> proof = new ArrayList<>(lines.size());
    for (int i = 0; i < lines.size(); i++) {
      proof.add(hex(file + " line " + (i + 1), lines.get(i), Rfc6962.HASH_SIZE));
    }
    return proof;
  }

  /** Splits on newlines; a final newline ends the last line rather than starting a new one. */
  private static List<String> lines(String text) {
    if (text.isEmpty()) {
      return List.of();
    }
    String body = text.endsWith("\n") ? text.substring(0, text.length() - 1) : text;
    List<String> out = new ArrayList<>();
    for (String line : body.split("\n", -1)) {
      out.add(line.endsWith("\r") ? line.substring(0, line.length() - 1) : line);
    }
    return out;
  }

  private String readText(String file) throws UsageException {
    Path p = Path.of(file);
    try {
      long size = Files.size(p);
      if (size > maxInputBytes) {
        throw new UsageException(file + ": got " + size + " bytes, want at most " + maxInputBytes);
      }
      byte[] bytes = Files.readAllBytes(p);
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(java.nio.ByteBuffer.wrap(bytes))
          .toString();
    } catch (NoSuchFileException e) {
      throw new UsageException(file + ": no such file", e);
    } catch (CharacterCodingException e) {
      throw new UsageException(file + ": not valid UTF-8", e);
    } catch (IOException e) {
      throw new UsageException(file + ": cannot read: " + e.getMessage(), e);
    }
  }

  /** Decodes hex; {@code want} is the required byte length, or -1 for any. */
  private static byte[] hex(String what, String s, int want) throws UsageException {
    byte[] b;
    try {
      b = HEX.parseHex(s);
    } catch (IllegalArgumentException e) {
      throw new UsageException(what + ": invalid hex \"" + abbreviate(s) + "\"", e);
    }
    if (want >= 0 && b.length != want) {
      throw new UsageException(what + ": got " + b.length + " bytes, want " + want);
    }
    return b;
  }

  private static String abbreviate(String s) {
    return s.length() <= 40 ? s : s.substring(0, 40) + "...";
  }

  /** A whole tree in memory with every perfect-subtree hash, for proof generation. */
  private static final class Tree {
    private final CompactRange range = CompactRange.empty();
    private final Map<NodeId, byte[]> nodes = new HashMap<>();

    static Tree of(List<byte[]> leaves) {
      Tree t = new Tree();
      for (byte[] leaf : leaves) {
        t.range.append(Rfc6962.leafHash(leaf), t.nodes::put);
      }
      return t;
    }

    long size() {
      return range.end();
    }

    byte[] root() {
      return range.root();
    }

    byte[] hash(NodeId id) {
      return nodes.get(id);
    }
  }
}
