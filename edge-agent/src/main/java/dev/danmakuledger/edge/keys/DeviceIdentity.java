package dev.danmakuledger.edge.keys;

import dev.danmakuledger.edge.store.PrivateFiles;
import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.protocol.DeviceLog;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.SecureRandom;

/**
 * A device id and its signing key. The signer's name is the device log origin {@code
 * danmaku-ledger/device/<id>} (docs/architecture.md §3), so a standard note verifier can check the
 * checkpoints it signs.
 */
public record DeviceIdentity(String deviceId, NoteSigner signer) {
  public static final String KEY_FILE = "device.key";

  public DeviceIdentity {
    if (deviceId == null || signer == null) {
      throw new IllegalArgumentException("device identity: got a null id or signer");
    }
    if (!signer.name().equals(DeviceLog.origin(deviceId))) {
      throw new IllegalArgumentException(
          "device key name: got " + signer.name() + ", want " + DeviceLog.origin(deviceId));
    }
  }

  /** The device log origin. */
  public String origin() {
    return signer.name();
  }

  /**
   * Generates a key pair and writes the private key to {@code D/device.key} with mode 0600 (on
   * POSIX file systems the file is created with that mode, never wider).
   *
   * @throws FileAlreadyExistsException if the directory already has a key
   */
  public static DeviceIdentity generate(Path dataDir, String deviceId, SecureRandom random)
      throws IOException {
    NoteSigner signer = NoteSigner.generate(DeviceLog.origin(deviceId), random);
    Path file = dataDir.resolve(KEY_FILE);
    byte[] encoded = (signer.privateKey() + "\n").getBytes(StandardCharsets.US_ASCII);
    PrivateFiles.createFile(file);
    Files.write(file, encoded);
    return new DeviceIdentity(deviceId, signer);
  }

  /**
   * Reads {@code D/device.key}.
   *
   * @throws IOException if the file is missing, unreadable, accessible to group or others, or holds
   *     another device's key
   */
  public static DeviceIdentity load(Path dataDir, String deviceId) throws IOException {
    Path file = dataDir.resolve(KEY_FILE);
    PrivateFiles.requireOwnerOnly(file, "device key");
    String text;
    try {
      text = Files.readString(file, StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      throw new IOException("no device key at " + file + "; run `edge-agent init` first", e);
    }
    NoteSigner signer;
    try {
      signer = NoteSigner.fromPrivateKey(text);
    } catch (IllegalArgumentException e) {
      throw new IOException("device key " + file + " is malformed: " + e.getMessage(), e);
    }
    try {
      return new DeviceIdentity(deviceId, signer);
    } catch (IllegalArgumentException e) {
      throw new IOException(file + ": " + e.getMessage(), e);
    }
  }
}
