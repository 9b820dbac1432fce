package dev.danmakuledger.merkle.checkpoint;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.Size;

class CheckpointProperties {
  private static final NoteSigner SIGNER =
      NoteSigner.fromPrivateKey(CheckpointsTest.resource("golden.key").strip());

  @Property(seed = "4242", tries = 200)
  void signedCheckpointsRoundTrip(
      @ForAll("origins") String origin, @ForAll("sizes") long size, @ForAll @Size(32) byte[] root)
      throws Exception {
    Checkpoint cp = new Checkpoint(origin, size, root);
    assertEquals(cp, Checkpoint.parse(cp.body()));
    assertEquals(cp, Checkpoints.open(Checkpoints.sign(cp, SIGNER), origin, SIGNER.verifier()));
  }

  @Property(seed = "4243", tries = 500)
  void arbitraryTextNeverEscapesAsAnythingButNoteVerificationException(@ForAll String junk) {
    String golden = CheckpointsTest.resource("checkpoint-8.note");
    for (String note : new String[] {junk, golden + junk, junk + golden}) {
      try {
        Checkpoints.open(note, "danmaku-ledger/device/golden-device", SIGNER.verifier());
        assertEquals(golden, note, "only the untouched golden note may open");
      } catch (NoteVerificationException expected) {
        // rejection is the expected outcome for altered notes
      }
    }
  }

  @Property(seed = "4244", tries = 500)
  void parseAcceptsOnlyCanonicalBodies(@ForAll("bodyLike") String body) {
    Checkpoint cp;
    try {
      cp = Checkpoint.parse(body);
    } catch (IllegalArgumentException rejected) {
      return;
    }
    assertEquals(body, cp.body(), "an accepted body must be the canonical encoding");
  }

  @Provide
  Arbitrary<String> bodyLike() {
    Arbitrary<String> line =
        Arbitraries.oneOf(
            Arbitraries.strings().withChars("0123456789+-= \n").ofMaxLength(4),
            Arbitraries.of(
                "o",
                "0",
                "8",
                "08",
                "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyg=",
                "XcnaeacGWamtVZy3Ad7ZoqudgjqtL0lgz+Nw7/RgQyh=",
                ""));
    return line.list().ofMinSize(1).ofMaxSize(5).map(l -> String.join("\n", l) + "\n");
  }

  @Provide
  Arbitrary<String> origins() {
    return Arbitraries.strings()
        .withCharRange('!', '~')
        .withChars('\u00e9', '\u5f3e', ' ')
        .ofMinLength(1)
        .ofMaxLength(80)
        .filter(s -> s.strip().equals(s));
  }

  @Provide
  Arbitrary<Long> sizes() {
    return Arbitraries.oneOf(
        Arbitraries.longs().between(0, 1000), Arbitraries.longs().between(0, Long.MAX_VALUE));
  }
}
