package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.checkpoint.Checkpoint;
import dev.danmakuledger.merkle.checkpoint.Checkpoints;
import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.Cosignatures;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import dev.danmakuledger.merkle.checkpoint.SignedNote;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.Proofs;
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
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
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
        keygen --name NAME --out DIR [--type ed25519|cosignature]
                                                      write DIR/<NAME, '/' etc. %-encoded>.key
                                                      (mode 0600), print the verifier key
                                                      (cosignature: type 0x04 cosigner key)
        cosign --key COSIGNER_KEYFILE --vkey LOG_VERIFIER_KEY NOTE
                                                      verify NOTE, print it with a
                                                      cosignature/v1 line timestamped now
        checkpoint --key KEYFILE --origin ORIGIN LEAVES   print a signed checkpoint note
        verify-checkpoint --vkey VERIFIER_KEY [--origin ORIGIN] NOTE
                                                      print "origin size root-hex"; with a
                                                      type 0x04 key, check its cosignature/v1
                                                      and add "cosigned <time>"
        verify-room --vkey VERIFIER_KEY [--origin ORIGIN] [--previous NOTE]
                    [--cosigner COSIGNER_VKEY] DIR
                                                      audit a mirrored room log (DIR/checkpoint,
                                                      DIR/tile/...): signature, tiles, entries,
                                                      numbering, consistency with NOTE
        verify-bundle --server-keys FILE --device-vkey DEVICE_VKEY BUNDLE
                                                      check a message's audit bundle: room
                                                      checkpoint, entry, both inclusions, record,
                                                      device signature and server cosignature
        fetch-room URL ROOM --out DIR                 mirror URL/v1/rooms/ROOM/log/ (checkpoint,
                                                      tiles, entry bundles) into DIR; full tiles
                                                      already there are kept
      """;

  private final PrintStream out;
  private final PrintStream err;
  private final long maxInputBytes;
  private final SecureRandom random;
  private final Clock clock;

  Tlog(PrintStream out, PrintStream err, long maxInputBytes, SecureRandom random) {
    this(out, err, maxInputBytes, random, Clock.systemUTC());
  }

  Tlog(PrintStream out, PrintStream err, long maxInputBytes, SecureRandom random, Clock clock) {
    this.out = out;
    this.err = err;
    this.maxInputBytes = maxInputBytes;
    this.random = random;
    this.clock = clock;
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
        case "verify-room" -> new VerifyRoom(this::readText, out).run(rest);
        case "verify-bundle" -> new VerifyBundle(this::readText, out).run(rest);
        case "fetch-room" -> new FetchRoom(FetchRoom.defaultClient(), out).run(rest);
        case "cosign" -> cosign(rest);
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
    Args a = Args.parse(rest, Set.of("name", "out"), Set.of("type"), List.of());
    String name = a.option("name");
    String type = a.option("type") == null ? "ed25519" : a.option("type");
    String privateKey;
    String verifierKey;
    String fileName;
    try {
      switch (type) {
        case "ed25519" -> {
          NoteSigner s = NoteSigner.generate(name, random);
          privateKey = s.privateKey();
          verifierKey = s.verifierKey();
        }
        case "cosignature" -> {
          CosignatureSigner s = CosignatureSigner.generate(name, random);
          privateKey = s.privateKey();
          verifierKey = s.verifierKey();
        }
        default ->
            throw new UsageException(
                "--type: got \"" + type + "\", want ed25519 (0x01) or cosignature (0x04)");
      }
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
      Files.writeString(file, privateKey + "\n", StandardCharsets.UTF_8);
    } catch (FileAlreadyExistsException e) {
      throw new UsageException(file + " already exists; refusing to overwrite a key", e);
    } catch (IOException e) {
      throw new UsageException("cannot write " + file + ": " + e.getMessage(), e);
    }
    err.println("tlog keygen: private key written to " + file);
    out.println(verifierKey);
  }

  /**
   * Verifies a checkpoint note with the log's key, then prints it with this cosigner's {@code
   * cosignature/v1} line added, timestamped now (C2SP tlog-cosignature).
   */
  private void cosign(List<String> rest) throws UsageException, VerificationException {
    Args a = Args.parse(rest, Set.of("key", "vkey"), Set.of(), List.of("NOTE"));
    CosignatureSigner signer;
    try {
      signer = CosignatureSigner.fromPrivateKey(readText(a.option("key")).strip());
    } catch (IllegalArgumentException e) {
      throw new UsageException("--key: " + e.getMessage(), e);
    }
    NoteVerifier log = parseVerifier(a.option("vkey"));
    String note = readText(a.operand(0));
    try {
      Checkpoint.parse(SignedNote.open(note, log));
    } catch (IllegalArgumentException e) {
      throw new UsageException("signed note is not a checkpoint: " + e.getMessage(), e);
    }
    out.print(signer.cosign(note, clock));
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
    String vkey = a.option("vkey");
    if (isCosignatureKey(vkey)) {
      verifyCosignature(vkey, a);
      return;
    }
    NoteVerifier verifier = parseVerifier(vkey);
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

  /** With a type 0x04 vkey: checks the cosignature/v1 and prints the checkpoint and its time. */
  private void verifyCosignature(String vkey, Args a) throws UsageException, VerificationException {
    CosignatureVerifier cosigner;
    try {
      cosigner = CosignatureVerifier.parse(vkey);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--vkey: " + e.getMessage(), e);
    }
    String note = readText(a.operand(0));
    Cosignatures.Cosigned c =
        a.option("origin") == null
            ? Cosignatures.open(note, cosigner)
            : Cosignatures.open(note, a.option("origin"), cosigner);
    Checkpoint cp = c.checkpoint();
    out.println(
        cp.origin()
            + " "
            + cp.size()
            + " "
            + HEX.formatHex(cp.root())
            + " cosigned "
            + Instant.ofEpochSecond(c.timestamp()));
  }

  /** Whether a vkey's key material starts with signature type 0x04 (C2SP tlog-cosignature). */
  private static boolean isCosignatureKey(String vkey) {
    String[] parts = vkey.split("\\+", 3);
    if (parts.length != 3) {
      return false;
    }
    try {
      byte[] raw = Base64.getDecoder().decode(parts[2]);
      return raw.length > 0 && raw[0] == 0x04;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  static NoteVerifier parseVerifier(String vkey) throws UsageException {
    try {
      return NoteVerifier.parse(vkey);
    } catch (IllegalArgumentException e) {
      throw new UsageException("--vkey: " + e.getMessage(), e);
    }
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

  String readText(String file) throws UsageException {
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
