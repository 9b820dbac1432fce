package dev.danmakuledger.server.ingest;

import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import java.util.Arrays;
import java.util.Map;

/**
 * The note verifier of each recently seen device key, so that a device's batches share one:
 * building a verifier decodes the key's curve point, about a twentieth of a small batch's work on
 * its request thread (docs/benchmarks.md, "live"). A verifier is remembered under the log's origin
 * together with the key it was built from, so a device enrolled again under a new key gets a new
 * one.
 *
 * <p>At most {@link #MAX_KEYS} keys are remembered, the least recently used dropped first (a
 * verifier is a few hundred bytes, so about a megabyte in all). Thread-safe.
 */
final class DeviceVerifiers {
  /** Keys remembered at most; as many as {@link RecentDevices#MAX_DEVICES} rows. */
  static final int MAX_KEYS = RecentDevices.MAX_DEVICES;

  private record Entry(byte[] publicKey, NoteVerifier verifier) {}

  private final Map<String, Entry> byOrigin;

  DeviceVerifiers() {
    this(MAX_KEYS);
  }

  /**
   * @throws IllegalArgumentException if {@code maxKeys} is below 1
   */
  DeviceVerifiers(int maxKeys) {
    this.byOrigin = new RecentlyUsed<>(maxKeys);
  }

  /**
   * The Ed25519 note verifier of {@code publicKey} under the key name {@code origin}.
   *
   * @throws IllegalArgumentException if the name is invalid or the key not a 32-byte curve point
   */
  NoteVerifier of(String origin, byte[] publicKey) {
    synchronized (byOrigin) {
      Entry e = byOrigin.get(origin);
      if (e != null && Arrays.equals(e.publicKey(), publicKey)) {
        return e.verifier();
      }
    }
    NoteVerifier built = NoteVerifier.ofEd25519(origin, publicKey);
    synchronized (byOrigin) {
      byOrigin.put(origin, new Entry(publicKey.clone(), built));
    }
    return built;
  }

  /** How many keys are remembered. */
  int size() {
    synchronized (byOrigin) {
      return byOrigin.size();
    }
  }
}
