package dev.danmakuledger.merkle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.stream.Stream;

/**
 * Loads the transparency-dev/merkle inclusion and consistency proof vectors pinned under {@code
 * src/test/resources/dev/danmakuledger/merkle/vectors} (see the README there for provenance).
 */
public final class PublicVectors {
  /** The one vector whose 12-byte "don't care" roots cannot be tree roots; see the README. */
  public static final String NON_HASH_ROOTS_EXPECTED_OK =
      "consistency/additional/sizes-are-equal-one-and-proof-is-empty.json";

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final BigInteger MAX_LONG = BigInteger.valueOf(Long.MAX_VALUE);

  private PublicVectors() {}

  /** An inclusion vector; {@code leafIdx} and {@code treeSize} are unsigned 64-bit values. */
  public record Inclusion(
      String name,
      BigInteger leafIdx,
      BigInteger treeSize,
      byte[] root,
      byte[] leafHash,
      List<byte[]> proof,
      boolean wantErr) {
    /**
     * Whether a field cannot even be expressed as tlog input (non-32-byte hash, index > 2^63-1).
     */
    public boolean hasMalformedInput() {
      return !fitsLong(leafIdx)
          || !fitsLong(treeSize)
          || root.length != 32
          || leafHash.length != 32
          || proof.stream().anyMatch(h -> h.length != 32);
    }
  }

  /** A consistency vector; sizes are unsigned 64-bit values. */
  public record Consistency(
      String name,
      BigInteger size1,
      BigInteger size2,
      byte[] root1,
      byte[] root2,
      List<byte[]> proof,
      boolean wantErr) {
    /** Whether a field cannot even be expressed as tlog input (non-32-byte hash, size > 2^63-1). */
    public boolean hasMalformedInput() {
      return !fitsLong(size1)
          || !fitsLong(size2)
          || root1.length != 32
          || root2.length != 32
          || proof.stream().anyMatch(h -> h.length != 32);
    }
  }

  public static List<Inclusion> inclusion() {
    List<Inclusion> out = new ArrayList<>();
    for (Path p : files("inclusion")) {
      JsonNode n = read(p);
      out.add(
          new Inclusion(
              name(p),
              n.get("leafIdx").bigIntegerValue(),
              n.get("treeSize").bigIntegerValue(),
              b64(n.get("root")),
              b64(n.get("leafHash")),
              hashes(n.get("proof")),
              n.get("wantErr").booleanValue()));
    }
    return out;
  }

  public static List<Consistency> consistency() {
    List<Consistency> out = new ArrayList<>();
    for (Path p : files("consistency")) {
      JsonNode n = read(p);
      out.add(
          new Consistency(
              name(p),
              n.get("size1").bigIntegerValue(),
              n.get("size2").bigIntegerValue(),
              b64(n.get("root1")),
              b64(n.get("root2")),
              hashes(n.get("proof")),
              n.get("wantErr").booleanValue()));
    }
    return out;
  }

  /** The value as a Java long, wrapping 2^64-1 to -1 as a uint64 cast would. */
  public static long asLong(BigInteger v) {
    return v.longValue();
  }

  static boolean fitsLong(BigInteger v) {
    return v.signum() >= 0 && v.compareTo(MAX_LONG) <= 0;
  }

  private static Path root() {
    try {
      return Path.of(PublicVectors.class.getResource("vectors").toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static List<Path> files(String kind) {
    try (Stream<Path> s = Files.walk(root().resolve(kind))) {
      return s.filter(p -> p.toString().endsWith(".json")).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String name(Path p) {
    return root().relativize(p).toString().replace('\\', '/');
  }

  private static JsonNode read(Path p) {
    try {
      return JSON.readTree(p.toFile());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] b64(JsonNode n) {
    return n == null || n.isNull() ? new byte[0] : Base64.getDecoder().decode(n.textValue());
  }

  private static List<byte[]> hashes(JsonNode n) {
    List<byte[]> out = new ArrayList<>();
    if (n != null && !n.isNull()) {
      n.forEach(h -> out.add(b64(h)));
    }
    return out;
  }
}
