package dev.danmakuledger.edge.store;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.Set;

/**
 * Owner-only permissions of the data directory and its files. The directory holds the device's
 * signing key and its log; a key another local user can read lets them sign checkpoints as the
 * device, and a token another user can read lets them enrol devices. So the directory is mode 0700,
 * every file the agent creates in it is created 0600 (never wider, even for a moment), and a key or
 * token file that group or others may read is refused rather than used. POSIX file attributes only;
 * on file systems without them (Windows) the checks are skipped.
 */
public final class PrivateFiles {
  private static final Set<PosixFilePermission> DIR = PosixFilePermissions.fromString("rwx------");
  private static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");
  private static final Set<PosixFilePermission> GROUP_OR_OTHERS =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.GROUP_EXECUTE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE,
          PosixFilePermission.OTHERS_EXECUTE);

  private PrivateFiles() {}

  /** Creates {@code dir} (and missing parents) and sets it, not its parents, to mode 0700. */
  public static void createDirectory(Path dir) throws IOException {
    Files.createDirectories(dir);
    if (posix(dir)) {
      Files.setPosixFilePermissions(dir, DIR);
    }
  }

  /** Sets an existing directory to mode 0700. */
  public static void restrictDirectory(Path dir) throws IOException {
    if (posix(dir)) {
      Files.setPosixFilePermissions(dir, DIR);
    }
  }

  /**
   * Creates an empty file with mode 0600.
   *
   * @throws FileAlreadyExistsException if it exists
   */
  public static void createFile(Path file) throws IOException {
    if (posix(file.toAbsolutePath().getParent())) {
      Files.createFile(file, PosixFilePermissions.asFileAttribute(FILE));
    } else {
      Files.createFile(file);
    }
  }

  /** The attributes that create a file with mode 0600, for {@code Files.newByteChannel} & co. */
  public static FileAttribute<?>[] ownerOnly(Path file) throws IOException {
    return posix(file.toAbsolutePath().getParent())
        ? new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(FILE)}
        : new FileAttribute<?>[0];
  }

  /** Sets an existing file to mode 0600; does nothing for a missing one. */
  public static void restrict(Path file) throws IOException {
    if (Files.exists(file) && posix(file)) {
      Files.setPosixFilePermissions(file, FILE);
    }
  }

  /**
   * Refuses a secret file that group or others may read or write.
   *
   * @param what what the file holds, for the message ("device key", "enrolment token")
   * @throws IOException naming the mode and the {@code chmod} that fixes it
   */
  public static void requireOwnerOnly(Path file, String what) throws IOException {
    if (!Files.exists(file) || !posix(file)) {
      return;
    }
    Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
    Set<PosixFilePermission> wide = EnumSet.noneOf(PosixFilePermission.class);
    wide.addAll(perms);
    wide.retainAll(GROUP_OR_OTHERS);
    if (!wide.isEmpty()) {
      throw new IOException(
          what
              + " "
              + file
              + " is accessible to group or others: got mode "
              + PosixFilePermissions.toString(perms)
              + ", want rw------- (0600); run `chmod 600 "
              + file
              + "` and try again");
    }
  }

  private static boolean posix(Path path) throws IOException {
    return path != null
        && Files.getFileStore(Files.exists(path) ? path : path.getParent())
            .supportsFileAttributeView("posix");
  }
}
