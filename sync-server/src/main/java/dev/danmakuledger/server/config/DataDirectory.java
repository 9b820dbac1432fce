package dev.danmakuledger.server.config;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;

/**
 * The sync server's data directory: the enrolment and admin tokens and the server's receipt-signing
 * key, each created on first start with owner-only permissions (0600) and reused afterwards.
 */
public final class DataDirectory {
  /** Name of the server's note key; receipts carry a signature under this name. */
  public static final String SERVER_KEY_NAME = "danmaku-ledger/server";

  private static final Set<PosixFilePermission> OWNER_ONLY =
      PosixFilePermissions.fromString("rw-------");

  private final Path dir;
  private final String enrollToken;
  private final String adminToken;
  private final NoteSigner serverSigner;
  private final List<Path> created;

  private DataDirectory(
      Path dir, String enrollToken, String adminToken, NoteSigner signer, List<Path> created) {
    this.dir = dir;
    this.enrollToken = enrollToken;
    this.adminToken = adminToken;
    this.serverSigner = signer;
    this.created = List.copyOf(created);
  }

  /**
   * Opens {@code dir}, creating it and any missing token or key file.
   *
   * @throws UncheckedIOException when the directory or a file cannot be read or written
   */
  public static DataDirectory open(Path dir, SecureRandom random) {
    try {
      Files.createDirectories(dir);
      List<Path> created = new ArrayList<>();
      String enroll = readOrCreate(dir.resolve("enroll.token"), () -> token(random), created);
      String admin = readOrCreate(dir.resolve("admin.token"), () -> token(random), created);
      String key =
          readOrCreate(
              dir.resolve("server.key"),
              () -> NoteSigner.generate(SERVER_KEY_NAME, random).privateKey(),
              created);
      return new DataDirectory(dir, enroll, admin, NoteSigner.fromPrivateKey(key), created);
    } catch (IOException e) {
      throw new UncheckedIOException("data directory " + dir + ": " + e.getMessage(), e);
    }
  }

  private interface Secret {
    String make();
  }

  private static String readOrCreate(Path file, Secret secret, List<Path> created)
      throws IOException {
    if (Files.exists(file)) {
      String value = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (value.isEmpty()) {
        throw new IOException(file + " is empty; delete it to create a new one");
      }
      return value;
    }
    String value = secret.make();
    try {
      writeOwnerOnly(file, value + "\n");
    } catch (FileAlreadyExistsException e) {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    }
    created.add(file);
    return value;
  }

  private static void writeOwnerOnly(Path file, String content) throws IOException {
    try {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
    } catch (UnsupportedOperationException e) {
      Files.createFile(file);
    }
    Files.writeString(file, content, StandardCharsets.UTF_8);
  }

  private static String token(SecureRandom random) {
    byte[] bytes = new byte[32];
    random.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  public Path path() {
    return dir;
  }

  public String enrollToken() {
    return enrollToken;
  }

  public String adminToken() {
    return adminToken;
  }

  public NoteSigner serverSigner() {
    return serverSigner;
  }

  /** The files this start created (empty on later starts). */
  public List<Path> created() {
    return created;
  }
}
