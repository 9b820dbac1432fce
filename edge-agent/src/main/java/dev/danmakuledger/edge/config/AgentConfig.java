package dev.danmakuledger.edge.config;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.PrivateFiles;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The settings in {@code D/agent.properties}, written by {@code init}: the device id, Bloom sizing,
 * the store size bound, the SQLite durability mode and the retention (docs/edge-agent.md "Retention
 * and pruning"; {@link Duration#ZERO} keeps every record's bytes forever).
 */
public record AgentConfig(
    String deviceId,
    BloomConfig bloom,
    long maxStoreBytes,
    Durability durability,
    Duration retention) {
  public static final String FILE_NAME = "agent.properties";
  private static final Pattern DEVICE_ID = Pattern.compile("[A-Za-z0-9_-]{1,64}");

  /** 1 GiB. */
  public static final long DEFAULT_MAX_STORE_BYTES = 1L << 30;

  public AgentConfig {
    if (deviceId == null || !DEVICE_ID.matcher(deviceId).matches()) {
      throw new IllegalArgumentException(
          "device id: got " + deviceId + ", want 1..64 of [A-Za-z0-9_-]");
    }
    if (bloom == null || durability == null || retention == null) {
      throw new IllegalArgumentException(
          "agent config: got a null bloom, durability or retention setting");
    }
    if (retention.isNegative()) {
      throw new IllegalArgumentException(
          "retention: got " + retention + ", want >= 0 (0 keeps records forever)");
    }
    if (maxStoreBytes < 64 * 1024) {
      throw new IllegalArgumentException(
          "max store bytes: got " + maxStoreBytes + ", want >= 65536");
    }
  }

  /** True when records may be pruned (a positive retention). */
  public boolean prunes() {
    return !retention.isZero();
  }

  /** Defaults for a new device: records are kept forever. */
  public static AgentConfig defaults(String deviceId) {
    return new AgentConfig(
        deviceId, BloomConfig.defaults(), DEFAULT_MAX_STORE_BYTES, Durability.FULL, Duration.ZERO);
  }

  /** The settings file of a data directory. */
  public static Path fileIn(Path dataDir) {
    return dataDir.resolve(FILE_NAME);
  }

  /**
   * Reads {@code D/agent.properties}.
   *
   * @throws NotInitializedException if the directory was never initialised
   * @throws IllegalArgumentException naming the bad setting if one is malformed
   */
  public static AgentConfig load(Path dataDir) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(fileIn(dataDir), StandardCharsets.UTF_8)) {
      p.load(in);
    } catch (NoSuchFileException e) {
      throw new NotInitializedException(dataDir);
    }
    try {
      BloomConfig bloom =
          new BloomConfig(
              Long.parseLong(required(p, "bloom.expectedItems")),
              Double.parseDouble(required(p, "bloom.falsePositiveRate")),
              Duration.parse(required(p, "bloom.window")));
      return new AgentConfig(
          required(p, "deviceId"),
          bloom,
          Long.parseLong(required(p, "maxStoreBytes")),
          Durability.valueOf(required(p, "durability")),
          Duration.parse(p.getProperty("retention", "PT0S").trim()));
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new IllegalArgumentException(
          fileIn(dataDir) + ": malformed setting: " + e.getMessage(), e);
    }
  }

  private static String required(Properties p, String name) {
    String v = p.getProperty(name);
    if (v == null || v.isBlank()) {
      throw new IllegalArgumentException(FILE_NAME + ": got no " + name + ", want a value");
    }
    return v.trim();
  }

  /** Writes the settings file; fails if it exists. */
  public void createIn(Path dataDir) throws IOException {
    Properties p = new Properties();
    p.setProperty("deviceId", deviceId);
    p.setProperty("bloom.expectedItems", Long.toString(bloom.expectedItems()));
    p.setProperty("bloom.falsePositiveRate", Double.toString(bloom.falsePositiveRate()));
    p.setProperty("bloom.window", bloom.window().toString());
    p.setProperty("maxStoreBytes", Long.toString(maxStoreBytes));
    p.setProperty("durability", durability.name());
    p.setProperty("retention", retention.toString());
    PrivateFiles.createFile(fileIn(dataDir));
    try (Writer out =
        Files.newBufferedWriter(
            fileIn(dataDir), StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING)) {
      p.store(out, "danmaku-ledger edge agent");
    }
  }
}
