package dev.danmakuledger.edge.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Properties;
import java.util.Set;

/**
 * One writer per data directory: an OS file lock on {@code D/agent.lock}, released by the kernel
 * when the process dies (so a SIGKILL never leaves a stale lock). The file names the owner's pid
 * and, once it serves one, its local API address, so a second process can say where to go.
 */
public final class DataDirLock implements AutoCloseable {
  static final String FILE_NAME = "agent.lock";

  private final Path dataDir;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirLock(Path dataDir, FileChannel channel, FileLock lock) {
    this.dataDir = dataDir;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Takes the lock or fails at once.
   *
   * @throws StoreLockedException if another process (or another owner in this JVM) holds it
   */
  public static DataDirLock acquire(Path dataDir) throws IOException {
    Path file = dataDir.resolve(FILE_NAME);
    FileChannel channel =
        FileChannel.open(
            file,
            Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE),
            PrivateFiles.ownerOnly(file));
    PrivateFiles.restrict(file);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null;
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      Properties owner = readOwner(file);
      throw new StoreLockedException(dataDir, owner.getProperty("pid"), owner.getProperty("api"));
    }
    DataDirLock held = new DataDirLock(dataDir, channel, lock);
    held.write(null);
    return held;
  }

  /** Records the local API address ("127.0.0.1:7070") in the lock file for other processes. */
  public void advertise(String apiAddress) throws IOException {
    write(apiAddress);
  }

  private void write(String apiAddress) throws IOException {
    StringBuilder text = new StringBuilder();
    text.append("pid=").append(ProcessHandle.current().pid()).append('\n');
    if (apiAddress != null) {
      text.append("api=").append(apiAddress).append('\n');
    }
    channel.truncate(0);
    channel.write(ByteBuffer.wrap(text.toString().getBytes(StandardCharsets.UTF_8)), 0);
    channel.force(true);
  }

  private static Properties readOwner(Path file) {
    Properties owner = new Properties();
    try {
      owner.load(new java.io.StringReader(Files.readString(file, StandardCharsets.UTF_8)));
    } catch (IOException e) {
      // The owner may be rewriting the file; the message then names no pid.
    }
    return owner;
  }

  public Path dataDir() {
    return dataDir;
  }

  @Override
  public void close() throws IOException {
    try {
      lock.release();
    } finally {
      channel.close();
    }
  }
}
