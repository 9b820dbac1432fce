package dev.danmakuledger.edge.testing;

import dev.danmakuledger.edge.bloom.BloomConfig;
import dev.danmakuledger.edge.capture.CaptureRequest;
import dev.danmakuledger.edge.capture.CaptureService;
import dev.danmakuledger.edge.keys.DeviceIdentity;
import dev.danmakuledger.edge.store.Durability;
import dev.danmakuledger.edge.store.EdgeStore;
import dev.danmakuledger.edge.store.StoreException;
import dev.danmakuledger.edge.verify.LogVerifier;
import dev.danmakuledger.edge.verify.VerifyReport;
import dev.danmakuledger.protocol.key.IdempotencyKey;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;

/** A device data directory with its key, store and capture service, for tests. */
public final class TestDevice implements AutoCloseable {
  public static final long UNBOUNDED = Long.MAX_VALUE;

  public final Path dir;
  public final DeviceIdentity identity;
  public final Clock clock;
  public final BloomConfig bloom;
  public final long maxStoreBytes;
  public EdgeStore store;

  /** The same store as {@link #store}, for tests that make its appends fail or wait. */
  public FaultyStore faults;

  public CaptureService capture;

  private TestDevice(
      Path dir, DeviceIdentity identity, Clock clock, BloomConfig bloom, long maxStoreBytes) {
    this.dir = dir;
    this.identity = identity;
    this.clock = clock;
    this.bloom = bloom;
    this.maxStoreBytes = maxStoreBytes;
  }

  /** A new device "dev-1" with a fresh key, fully durable store, default Bloom sizing. */
  public static TestDevice create(Path dir, Clock clock) throws IOException {
    return create(dir, clock, new BloomConfig(10_000, 0.01, Duration.ofDays(1)), UNBOUNDED);
  }

  public static TestDevice create(Path dir, Clock clock, BloomConfig bloom, long maxStoreBytes)
      throws IOException {
    Files.createDirectories(dir);
    DeviceIdentity id = DeviceIdentity.generate(dir, "dev-1", new SecureRandom(new byte[] {1}));
    TestDevice d = new TestDevice(dir, id, clock, bloom, maxStoreBytes);
    d.start();
    return d;
  }

  /** The same directory and key opened again with another store bound. */
  public static TestDevice reopen(TestDevice stopped, long maxStoreBytes) throws StoreException {
    TestDevice d =
        new TestDevice(stopped.dir, stopped.identity, stopped.clock, stopped.bloom, maxStoreBytes);
    d.start();
    return d;
  }

  /** Opens store and capture service. */
  public void start() throws StoreException {
    faults = new FaultyStore(EdgeStore.open(EdgeStore.fileIn(dir), Durability.FULL));
    store = faults;
    capture = CaptureService.start(store, identity, bloom, maxStoreBytes, clock);
  }

  /** Closes and reopens, as after a restart. */
  public void restart() throws StoreException {
    stop();
    start();
  }

  public void stop() throws StoreException {
    capture.close();
    store.close();
  }

  public VerifyReport verify() {
    return new LogVerifier(identity.deviceId(), identity.signer().verifier()).verify(store);
  }

  /** A request from {@code user} with a key derived from {@code n}. */
  public CaptureRequest request(String user, int n, String text) {
    return new CaptureRequest(key(user, n), "room-1", user, text, 1000L * n, 1, 0xFFFFFF, 25);
  }

  public IdempotencyKey key(String user, int n) {
    return new IdempotencyKey(
        identity.deviceId(),
        user,
        1_700_000_000_000L + n,
        HexFormat.of().toHexDigits((long) n) + "00000000");
  }

  @Override
  public void close() throws StoreException {
    stop();
  }
}
