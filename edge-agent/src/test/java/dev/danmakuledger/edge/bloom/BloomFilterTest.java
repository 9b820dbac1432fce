package dev.danmakuledger.edge.bloom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.constraints.StringLength;
import org.junit.jupiter.api.Test;

class BloomFilterTest {
  private static final double LN2 = Math.log(2);

  @Test
  void sizingFollowsTheOptimalFormulas() {
    // n = 1,000,000, p = 1%: m = -n ln p / (ln 2)^2 = 9,585,058.4 bits, k = round(m/n ln 2) = 7.
    BloomFilter f = BloomFilter.create(1_000_000, 0.01);
    assertEquals(9_585_059, f.bitCount());
    assertEquals(7, f.hashCount());
    BloomFilter g = BloomFilter.create(1_000, 0.001);
    assertEquals(14_378, g.bitCount());
    assertEquals(10, g.hashCount());
  }

  @Test
  void memoryIsWithinFivePercentOfTheTheoreticalOptimum() {
    for (long n : new long[] {1_000, 100_000, 1_000_000}) {
      for (double p : new double[] {0.1, 0.01, 0.001, 0.0001}) {
        double optimalBytes = -n * Math.log(p) / (LN2 * LN2) / 8;
        long bytes = BloomFilter.create(n, p).memoryBytes();
        assertTrue(
            bytes >= optimalBytes && bytes <= optimalBytes * 1.05,
            "n=" + n + " p=" + p + ": got " + bytes + " bytes, want within 5% of " + optimalBytes);
      }
    }
  }

  @Test
  void measuredFalsePositiveRateOverOneMillionKeysIsWithinTheBound() {
    int n = 1_000_000;
    double p = 0.01;
    BloomFilter f = BloomFilter.create(n, p);
    for (int i = 0; i < n; i++) {
      f.put("member-" + i);
    }
    int falsePositives = 0;
    for (int i = 0; i < n; i++) {
      if (f.mightContain("absent-" + i)) {
        falsePositives++;
      }
    }
    double measured = (double) falsePositives / n;
    // Expected (1 - e^(-kn/m))^k = 0.01003 for k = 7; the standard deviation over 1M queries is
    // 1e-4, so 5% above p is 5 sigma.
    assertTrue(measured <= p * 1.05, "measured FPR: got " + measured + ", want <= " + p * 1.05);
    assertTrue(measured > p / 2, "measured FPR: got " + measured + ", a filter this full must err");
  }

  @Test
  void snapshotRoundTripKeepsEveryBit() {
    BloomFilter f = BloomFilter.create(1_000, 0.01);
    for (int i = 0; i < 500; i++) {
      f.put("k" + i);
    }
    BloomFilter g = BloomFilter.fromBytes(1_000, 0.01, f.items(), f.bitsToBytes());
    assertArrayEquals(f.bitsToBytes(), g.bitsToBytes());
    assertEquals(500, g.items());
    for (int i = 0; i < 500; i++) {
      assertTrue(g.mightContain("k" + i));
    }
  }

  @Test
  void snapshotOfTheWrongLengthIsRefused() {
    BloomFilter f = BloomFilter.create(1_000, 0.01);
    byte[] truncated = java.util.Arrays.copyOf(f.bitsToBytes(), f.bitsToBytes().length - 8);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> BloomFilter.fromBytes(1_000, 0.01, 0, truncated));
    assertTrue(e.getMessage().contains("want"), e.getMessage());
  }

  @Test
  void invalidParametersAreRefused() {
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(0, 0.01));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(10, 0));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(10, 1));
    assertThrows(IllegalArgumentException.class, () -> BloomFilter.create(10, Double.NaN));
  }

  @Test
  void emptyFilterContainsNothing() {
    BloomFilter f = BloomFilter.create(100, 0.01);
    assertFalse(f.mightContain(""));
    assertFalse(f.mightContain("anything"));
  }

  @Property(seed = "4242", tries = 200)
  void neverAFalseNegative(
      @ForAll @Size(min = 1, max = 200) List<@StringLength(max = 80) String> keys) {
    BloomFilter f = BloomFilter.create(keys.size(), 0.05);
    keys.forEach(f::put);
    for (String k : keys) {
      assertTrue(f.mightContain(k), "added key reported absent: " + k);
    }
  }
}
