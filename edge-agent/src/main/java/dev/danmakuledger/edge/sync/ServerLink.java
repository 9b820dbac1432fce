package dev.danmakuledger.edge.sync;

import dev.danmakuledger.edge.store.PrivateFiles;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.Properties;

/**
 * Where this device syncs to, written by {@code edge-agent enroll} to {@code D/server.properties}:
 * the server URL and the server's note verifier key, with which every receipt is checked.
 */
public record ServerLink(String serverUrl, String serverVerifierKey) {
  public static final String FILE_NAME = "server.properties";

  public ServerLink {
    if (serverUrl == null
        || !(serverUrl.startsWith("http://") || serverUrl.startsWith("https://"))) {
      throw new IllegalArgumentException("server URL: got " + serverUrl + ", want http(s)://...");
    }
    NoteVerifier.parse(serverVerifierKey);
  }

  /** The receipt verifier. */
  public NoteVerifier serverVerifier() {
    return NoteVerifier.parse(serverVerifierKey);
  }

  /** Reads the link of a data directory; empty if the device was never enrolled. */
  public static Optional<ServerLink> load(Path dataDir) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(dataDir.resolve(FILE_NAME), StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new ServerLink(p.getProperty("server"), p.getProperty("serverVerifierKey")));
    } catch (IllegalArgumentException e) {
      throw new IOException(dataDir.resolve(FILE_NAME) + " is malformed: " + e.getMessage(), e);
    }
  }

  /** Writes the link atomically (temp file, then rename). */
  public void save(Path dataDir) throws IOException {
    Properties p = new Properties();
    p.setProperty("server", serverUrl);
    p.setProperty("serverVerifierKey", serverVerifierKey);
    StringWriter text = new StringWriter();
    p.store(text, "danmaku-ledger sync server of this device (written by edge-agent enroll)");
    Path tmp = dataDir.resolve(FILE_NAME + ".tmp");
    Files.deleteIfExists(tmp);
    PrivateFiles.createFile(tmp);
    Files.writeString(tmp, text.toString(), StandardCharsets.UTF_8);
    Files.move(
        tmp,
        dataDir.resolve(FILE_NAME),
        StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
  }
}
