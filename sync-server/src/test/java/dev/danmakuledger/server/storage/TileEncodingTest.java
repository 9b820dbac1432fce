package dev.danmakuledger.server.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.zip.Deflater;
import org.junit.jupiter.api.Test;

final class TileEncodingTest {
  private static byte[] bundleLike(int entries) {
    StringBuilder b = new StringBuilder();
    Random r = new Random(7);
    for (int i = 0; i < entries; i++) {
      b.append("v1 ").append(1000 + i).append(" M ").append(r.nextLong() >>> 1);
      b.append(" kiosk-0").append(i % 4).append(' ').append(i).append(' ');
      for (int k = 0; k < 4; k++) {
        b.append(String.format("%016x", r.nextLong()));
      }
      b.append('\n');
    }
    return b.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] deflate(byte[] data) {
    Deflater d = new Deflater();
    d.setInput(data);
    d.finish();
    byte[] out = new byte[data.length + 1024];
    int n = d.deflate(out);
    d.end();
    return Arrays.copyOf(out, n);
  }

  @Test
  void bundlesAreStoredDeflatedAndReadBackExactly() {
    byte[] data = bundleLike(256);
    assertSame(TileEncoding.DEFLATE, TileEncoding.forKind(RoomTile.Kind.ENTRIES));
    byte[] stored = TileEncoding.DEFLATE.encode(data);
    assertTrue(
        stored.length < data.length * 3 / 4, "stored " + stored.length + " of " + data.length);
    assertArrayEquals(data, TileEncoding.DEFLATE.decode(stored, "k"));
    assertArrayEquals(
        new byte[0], TileEncoding.DEFLATE.decode(TileEncoding.DEFLATE.encode(new byte[0]), "k"));
  }

  @Test
  void hashTilesAreStoredAsTheyAre() {
    byte[] data = new byte[32 * 256];
    new Random(1).nextBytes(data);
    assertSame(TileEncoding.IDENTITY, TileEncoding.forKind(RoomTile.Kind.HASH));
    assertArrayEquals(data, TileEncoding.IDENTITY.encode(data));
    assertArrayEquals(data, TileEncoding.IDENTITY.decode(data, "k"));
  }

  @Test
  void aDamagedRowIsAServerFaultNamingWhatIsWrong() {
    byte[] stored = TileEncoding.DEFLATE.encode(bundleLike(64));
    IllegalStateException truncated =
        assertThrows(
            DamagedRowException.class,
            () -> TileEncoding.DEFLATE.decode(Arrays.copyOf(stored, stored.length / 2), "k"));
    assertTrue(truncated.getMessage().contains("truncated"), truncated.getMessage());
    byte[] trailing = Arrays.copyOf(stored, stored.length + 3);
    IllegalStateException extra =
        assertThrows(DamagedRowException.class, () -> TileEncoding.DEFLATE.decode(trailing, "k"));
    assertTrue(extra.getMessage().contains("after the deflate stream"), extra.getMessage());
    IllegalStateException garbage =
        assertThrows(
            DamagedRowException.class,
            () -> TileEncoding.DEFLATE.decode("not deflate".getBytes(StandardCharsets.UTF_8), "k"));
    assertTrue(garbage.getMessage().contains("not a deflate stream"), garbage.getMessage());
  }

  @Test
  void aRowThatInflatesBeyondTheLargestBundleIsRefused() {
    byte[] bomb = deflate(new byte[TileEncoding.MAX_DECODED + 1]);
    assertTrue(bomb.length < 100_000, "a small row: " + bomb.length);
    IllegalStateException e =
        assertThrows(DamagedRowException.class, () -> TileEncoding.DEFLATE.decode(bomb, "k"));
    assertTrue(e.getMessage().contains("inflates to over"), e.getMessage());
  }

  @Test
  void anUnknownEncodingCodeIsRefused() {
    assertEquals(TileEncoding.DEFLATE, TileEncoding.of("deflate", "k"));
    assertEquals(TileEncoding.IDENTITY, TileEncoding.of("identity", "k"));
    assertThrows(DamagedRowException.class, () -> TileEncoding.of("gzip", "k"));
    assertThrows(DamagedRowException.class, () -> TileEncoding.of(null, "k"));
  }
}
