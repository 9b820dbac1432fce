package dev.danmakuledger.ui.app;

import dev.danmakuledger.ui.client.Endpoint;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import java.util.Properties;

/**
 * Where to connect, from (in order) command-line flags and the config file {@code
 * console.properties} with keys {@code server} and {@code token-file}. The admin token itself lives
 * in a separate file readable only by its owner.
 */
final class ConsoleSettings {
  static final String SERVER = "server";
  static final String TOKEN_FILE = "token-file";
  private static final long MAX_TOKEN_BYTES = 4096;

  private ConsoleSettings() {}

  /**
   * Resolves the endpoint from flags, falling back to the config file; empty when neither names
   * both a server and a token file.
   *
   * @throws IOException if a named token file cannot be read or is empty or oversized
   */
  static Optional<Endpoint> resolve(String serverFlag, Path tokenFileFlag, Path configFile)
      throws IOException {
    Properties config = load(configFile);
    String server = serverFlag != null ? serverFlag : config.getProperty(SERVER);
    Path tokenFile =
        tokenFileFlag != null
            ? tokenFileFlag
            : Optional.ofNullable(config.getProperty(TOKEN_FILE)).map(Path::of).orElse(null);
    if (server == null || tokenFile == null) {
      return Optional.empty();
    }
    return Optional.of(Endpoint.of(server, readToken(tokenFile)));
  }

  /** Reads an admin token file: one line, at most 4 KiB. */
  static String readToken(Path file) throws IOException {
    long size = Files.size(file);
    if (size > MAX_TOKEN_BYTES) {
      throw new IOException(
          "token file " + file + ": got " + size + " bytes, want at most " + MAX_TOKEN_BYTES);
    }
    String token = Files.readString(file, StandardCharsets.UTF_8).strip();
    if (token.isEmpty() || token.contains("\n")) {
      throw new IOException("token file " + file + ": want exactly one non-empty line");
    }
    return token;
  }

  static Properties load(Path configFile) throws IOException {
    Properties p = new Properties();
    if (configFile != null && Files.isRegularFile(configFile)) {
      try (InputStream in = Files.newInputStream(configFile)) {
        p.load(in);
      }
    }
    return p;
  }

  /** Saves the server and the token (owner-only file beside the config) for the next start. */
  static void save(Path configFile, String server, String token) throws IOException {
    Path dir = configFile.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path tokenFile = dir.resolve("admin.token");
    Files.deleteIfExists(tokenFile);
    try {
      Files.createFile(
          tokenFile,
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tokenFile);
    }
    Files.writeString(tokenFile, token + "\n", StandardCharsets.UTF_8);
    Properties p = load(configFile);
    p.setProperty(SERVER, server);
    p.setProperty(TOKEN_FILE, tokenFile.toString());
    try (OutputStream out = Files.newOutputStream(configFile)) {
      p.store(out, "Danmaku Ledger console");
    }
  }
}
