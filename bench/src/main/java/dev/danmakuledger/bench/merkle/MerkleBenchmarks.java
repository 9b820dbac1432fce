package dev.danmakuledger.bench.merkle;

import dev.danmakuledger.merkle.NodeId;
import dev.danmakuledger.merkle.VerificationException;
import dev.danmakuledger.merkle.compact.CompactRange;
import dev.danmakuledger.merkle.hash.Rfc6962;
import dev.danmakuledger.merkle.proof.ConsistencyProof;
import dev.danmakuledger.merkle.proof.InclusionProof;
import dev.danmakuledger.merkle.proof.Proofs;
import java.nio.ByteBuffer;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Throughput of the merkle hot paths (leaf append, inclusion and consistency verification) and, as
 * the yardstick, of one raw SHA-256 over a node-sized (65-byte) input on the same JVM.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class MerkleBenchmarks {
  /** Leaves in the tree the verification benchmarks draw proofs from. */
  static final int TREE_SIZE = 100_000;

  private static final int SAMPLES = 256;

  /** A reusable digest and a node-sized message. */
  @State(Scope.Thread)
  public static class Sha {
    MessageDigest md;
    final byte[] msg = new byte[1 + 2 * Rfc6962.HASH_SIZE];

    @Setup
    public void setUp() throws NoSuchAlgorithmException {
      md = MessageDigest.getInstance("SHA-256");
      new Random(1).nextBytes(msg);
    }
  }

  /** A growing compact range and a ring of leaf hashes to append. */
  @State(Scope.Thread)
  public static class Appender {
    CompactRange range;
    final byte[][] leaves = new byte[1024][];
    int next;

    @Setup(Level.Iteration)
    public void setUp() {
      range = CompactRange.empty();
      for (int i = 0; i < leaves.length; i++) {
        leaves[i] = Rfc6962.leafHash(ByteBuffer.allocate(4).putInt(i).array());
      }
    }
  }

  /** One precomputed inclusion and consistency proof. */
  record Sample(
      long index,
      byte[] leaf,
      List<byte[]> inclusion,
      long oldSize,
      byte[] oldRoot,
      List<byte[]> consistency) {}

  /** Precomputed proofs in a tree of {@link #TREE_SIZE} leaves. */
  @State(Scope.Thread)
  public static class Proofs100k {
    final Sample[] samples = new Sample[SAMPLES];
    byte[] root;
    int next;

    @Setup
    public void setUp() {
      Map<NodeId, byte[]> nodes = new HashMap<>();
      CompactRange range = CompactRange.empty();
      byte[][] leaves = new byte[TREE_SIZE][];
      Random rnd = new Random(42);
      long[] olds = new long[SAMPLES];
      for (int k = 0; k < SAMPLES; k++) {
        olds[k] = 1 + rnd.nextInt(TREE_SIZE - 1);
      }
      Arrays.sort(olds);
      byte[][] oldRoots = new byte[SAMPLES][];
      int k = 0;
      for (int i = 0; i < TREE_SIZE; i++) {
        leaves[i] = Rfc6962.leafHash(ByteBuffer.allocate(4).putInt(i).array());
        range.append(leaves[i], nodes::put);
        while (k < SAMPLES && olds[k] == range.end()) {
          oldRoots[k++] = range.root();
        }
      }
      root = range.root();
      for (k = 0; k < SAMPLES; k++) {
        long index = rnd.nextInt(TREE_SIZE);
        samples[k] =
            new Sample(
                index,
                leaves[(int) index],
                Proofs.inclusion(index, TREE_SIZE, nodes::get),
                olds[k],
                oldRoots[k],
                Proofs.consistency(olds[k], TREE_SIZE, nodes::get));
      }
    }
  }

  @Benchmark
  public byte[] rawSha256(Sha s) {
    return s.md.digest(s.msg);
  }

  @Benchmark
  public long appendLeaf(Appender a) {
    a.range.append(a.leaves[a.next++ & 1023]);
    return a.range.end();
  }

  @Benchmark
  public Sample verifyInclusion(Proofs100k p) throws VerificationException {
    Sample s = p.samples[p.next++ & (SAMPLES - 1)];
    InclusionProof.verify(s.index(), TREE_SIZE, s.leaf(), s.inclusion(), p.root);
    return s;
  }

  @Benchmark
  public Sample verifyConsistency(Proofs100k p) throws VerificationException {
    Sample s = p.samples[p.next++ & (SAMPLES - 1)];
    ConsistencyProof.verify(s.oldSize(), TREE_SIZE, s.oldRoot(), p.root, s.consistency());
    return s;
  }
}
