package dev.danmakuledger.merkle.proof;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.PublicVectors;
import dev.danmakuledger.merkle.VerificationException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Feeds every transparency-dev/merkle inclusion and consistency vector through the verifiers: a
 * vector with {@code wantErr} must be rejected with a typed {@link VerificationException}, every
 * other vector must verify.
 */
class PublicVectorsTest {

  static Stream<Named<PublicVectors.Inclusion>> inclusionVectors() {
    return PublicVectors.inclusion().stream().map(v -> Named.of(v.name(), v));
  }

  static Stream<Named<PublicVectors.Consistency>> consistencyVectors() {
    return PublicVectors.consistency().stream()
        .filter(v -> !v.name().equals(PublicVectors.NON_HASH_ROOTS_EXPECTED_OK))
        .map(v -> Named.of(v.name(), v));
  }

  @Test
  void allVectorsArePresent() {
    assertEquals(98, PublicVectors.inclusion().size());
    assertEquals(98, PublicVectors.consistency().size());
    assertTrue(PublicVectors.inclusion().stream().anyMatch(v -> !v.wantErr()));
    assertTrue(PublicVectors.inclusion().stream().anyMatch(PublicVectors.Inclusion::wantErr));
  }

  @ParameterizedTest
  @MethodSource("inclusionVectors")
  void inclusionVectorVerifiesExactlyWhenItShould(PublicVectors.Inclusion v) {
    Runnable check =
        () -> {
          try {
            InclusionProof.verify(
                PublicVectors.asLong(v.leafIdx()),
                PublicVectors.asLong(v.treeSize()),
                v.leafHash(),
                v.proof(),
                v.root());
          } catch (VerificationException e) {
            throw new Rejected(e);
          }
        };
    if (v.wantErr()) {
      assertThrows(Rejected.class, check::run, v.name());
    } else {
      check.run();
    }
  }

  @ParameterizedTest
  @MethodSource("consistencyVectors")
  void consistencyVectorVerifiesExactlyWhenItShould(PublicVectors.Consistency v) {
    Runnable check = () -> verifyConsistency(v);
    if (v.wantErr()) {
      assertThrows(Rejected.class, check::run, v.name());
    } else {
      check.run();
    }
  }

  /**
   * The vector expects equal 12-byte roots of two size-1 trees to be "consistent". A root is a
   * SHA-256 output (RFC 9162 §2.1.1), so a 12-byte value is not the root of any tree: we reject it
   * as a malformed input rather than compare arbitrary bytes.
   */
  @Test
  void nonHashRootsAreRejectedEvenWhereTheVectorDoesNotCare() {
    PublicVectors.Consistency v =
        PublicVectors.consistency().stream()
            .filter(c -> c.name().equals(PublicVectors.NON_HASH_ROOTS_EXPECTED_OK))
            .findFirst()
            .orElseThrow();
    assertEquals(false, v.wantErr());
    assertEquals(12, v.root1().length);
    Rejected r = assertThrows(Rejected.class, () -> verifyConsistency(v));
    assertTrue(r.getCause() instanceof InvalidProofException, r.getCause().toString());
    assertTrue(r.getCause().getMessage().contains("want 32"), r.getCause().getMessage());
  }

  private static void verifyConsistency(PublicVectors.Consistency v) {
    try {
      ConsistencyProof.verify(
          PublicVectors.asLong(v.size1()),
          PublicVectors.asLong(v.size2()),
          v.root1(),
          v.root2(),
          v.proof());
    } catch (VerificationException e) {
      throw new Rejected(e);
    }
  }

  /** Carries a verification failure out of a lambda. */
  private static final class Rejected extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Rejected(VerificationException cause) {
      super(cause);
    }
  }
}
