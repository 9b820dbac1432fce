package dev.danmakuledger.server;

import dev.danmakuledger.merkle.checkpoint.CosignatureSigner;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * The sync server's data directory (docs/security.md, "Files and secrets"; docs/operations.md,
 * "Keys"): the enrolment and admin tokens, the server's keys and the embedded Redis password, each
 * created on first start with owner-only permissions (0600) and reused afterwards, and the embedded
 * H2 database under {@code db/}. The directory and {@code db/} are kept 0700, database files 0600.
 * A secret file that group or others may read or write is refused at start with the command that
 * fixes it: a secret that others could read must be assumed known.
 */
public final class DataDirectory {
  /**
   * Name of the server's first note key (type 0x01), which signed receipts before they became
   * cosignatures; kept so its verifier key stays known to agents holding such receipts.
   */
  public static final String SERVER_KEY_NAME = "danmaku-ledger/server";

  /** Prefix of the room log key name (type 0x01): {@code danmaku-ledger/server-log/<name>}. */
  public static final String LOG_KEY_PREFIX = "danmaku-ledger/server-log/";

  /**
   * Prefix of the cosigner key name (C2SP tlog-cosignature, type 0x04): {@code
   * danmaku-ledger/server/<name>}. A separate key from the log key: C2SP tlog-cosignature keys must
   * not produce other signature types.
   */
  public static final String COSIGNER_KEY_PREFIX = "danmaku-ledger/server/";

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> OWNER_ONLY_DIR =
      PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> GROUP_OR_OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private final Path dir;
  private final String enrollToken;
  private final String adminToken;
  private final String redisPassword;
  private final NoteSigner serverSigner;
  private final NoteSigner logSigner;
  private final CosignatureSigner cosigner;
  private final List<Path> created;

  private DataDirectory(
      Path dir,
      String enrollToken,
      String adminToken,
      String redisPassword,
      NoteSigner signer,
      NoteSigner logSigner,
      CosignatureSigner cosigner,
      List<Path> created) {
    this.dir = dir;
    this.enrollToken = enrollToken;
    this.adminToken = adminToken;
    this.redisPassword = redisPassword;
    this.serverSigner = signer;
    this.logSigner = logSigner;
    this.cosigner = cosigner;
    this.created = List.copyOf(created);
  }

  /**
   * Opens {@code dir}, creating it (0700) and any missing secret file (0600), and restricting the
   * directory and {@code db/} to the owner.
   *
   * @throws IllegalStateException when a secret file is open to group or others
   * @throws UncheckedIOException when the directory or a file cannot be read or written
   */
  public static DataDirectory open(Path dir, SecureRandom random) {
    return open(dir, "local", random);
  }

  /**
   * Opens {@code dir} as {@link #open(Path, SecureRandom)}; keys created now are named after {@code
   * serverName} ({@code server-log.key}, {@code server-cosigner.key}); existing key files keep the
   * name they were created with.
   */
  public static DataDirectory open(Path dir, String serverName, SecureRandom random) {
    try {
      ownerOnlyDirectory(dir);
      ownerOnlyDirectory(dir.resolve("db"));
      List<Path> created = new ArrayList<>();
      String enroll = readOrCreate(dir.resolve("enroll.token"), () -> token(random), created);
      String admin = readOrCreate(dir.resolve("admin.token"), () -> token(random), created);
      String key =
          readOrCreate(
              dir.resolve("server.key"),
              () -> NoteSigner.generate(SERVER_KEY_NAME, random).privateKey(),
              created);
      String logKey =
          readOrCreate(
              dir.resolve("server-log.key"),
              () -> NoteSigner.generate(LOG_KEY_PREFIX + serverName, random).privateKey(),
              created);
      String cosignerKey =
          readOrCreate(
              dir.resolve("server-cosigner.key"),
              () ->
                  CosignatureSigner.generate(COSIGNER_KEY_PREFIX + serverName, random).privateKey(),
              created);
      String redis = readOrCreate(dir.resolve("redis.password"), () -> token(random), created);
      return new DataDirectory(
          dir,
          enroll,
          admin,
          redis,
          NoteSigner.fromPrivateKey(key),
          NoteSigner.fromPrivateKey(logKey),
          CosignatureSigner.fromPrivateKey(cosignerKey),
          created);
    } catch (IOException e) {
      throw new UncheckedIOException("data directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private static void ownerOnlyDirectory(Path d) throws IOException {
    if (!Files.isDirectory(d)) {
      Files.createDirectories(d, PosixFilePermissions.asFileAttribute(OWNER_ONLY_DIR));
    }
    Files.setPosixFilePermissions(d, OWNER_ONLY_DIR);
  }

  private interface Secret {
    String make();
  }

  private static String readOrCreate(Path file, Secret secret, List<Path> created)
      throws IOException {
    if (Files.exists(file)) {
      return readSecret(file);
    }
    String value = secret.make();
    try {
      writeOwnerOnly(file, value + "\n");
    } catch (FileAlreadyExistsException e) {
      return readSecret(file);
    }
    created.add(file);
    return value;
  }

  private static String readSecret(Path file) throws IOException {
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
    if (perms.stream().anyMatch(GROUP_OR_OTHERS::contains)) {
      throw new IllegalStateException(
          file
              + " is open to group or others ("
              + PosixFilePermissions.toString(perms)
              + "), so the secret in it must be assumed known; run chmod 600 "
              + file
              + " (and replace the secret if others may have read it), then start again");
    }
    String value = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (value.isEmpty()) {
      throw new IOException(file + " is empty; delete it to create a new one");
    }
    return value;
  }

  private static void writeOwnerOnly(Path file, String content) throws IOException {
    Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  /** Writes {@code content} to {@code file} (created or replaced) with mode 0600. */
  public static void writeSecretFile(Path file, String content) {
    try {
      Files.deleteIfExists(file);
      writeOwnerOnly(file, content);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static String token(SecureRandom random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /**
   * Restricts every file of the embedded database directory to the owner (H2 creates its files with
   * the process umask); call after the database is opened.
   */
  public void restrictDatabaseFiles() {
    Path db = databaseDirectory();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(db)) {
      for (Path f : files) {
        if (Files.isRegularFile(f)) {
          Files.setPosixFilePermissions(f, OWNER_ONLY);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restrict " + db + ": " + e.getMessage(), e);
    }
  }

  public Path path() {
    return dir;
  }

  /** Where the embedded H2 database lives (0700). */
  public Path databaseDirectory() {
    return dir.resolve("db");
  }

  public String enrollToken() {
    return enrollToken;
  }

  public String adminToken() {
    return adminToken;
  }

  /** The password of the embedded Redis ({@code redis.password}). */
  public String redisPassword() {
    return redisPassword;
  }

  public NoteSigner serverSigner() {
    return serverSigner;
  }

  /** The room log key ({@code server-log.key}): signs room checkpoints. */
  public NoteSigner logSigner() {
    return logSigner;
  }

  /** The cosigner key ({@code server-cosigner.key}): cosigns device checkpoints (receipts). */
  public CosignatureSigner cosigner() {
    return cosigner;
  }

  /** The files this start created (empty on later starts). */
  public List<Path> created() {
    return created;
  }
}
