package dev.danmakuledger.server.ingest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.checkpoint.NoteSigner;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

class DeviceVerifiersTest {
  private static final byte[] MSG = "checkpoint body\n".getBytes(StandardCharsets.UTF_8);
  private final SecureRandom random = new SecureRandom();

  @Test
  void aDevicesBatchesShareOneVerifierOfItsKey() {
    DeviceVerifiers verifiers = new DeviceVerifiers(4);
    NoteSigner key = NoteSigner.generate("dev/a", random);
    NoteVerifier first = verifiers.of("dev/a", key.publicKey());
    assertSame(first, verifiers.of("dev/a", key.publicKey()));
    assertTrue(first.verify(MSG, key.sign(MSG)));
    assertEquals(1, verifiers.size());
  }

  @Test
  void aNewKeyUnderTheSameOriginGetsAVerifierOfItsOwn() {
    DeviceVerifiers verifiers = new DeviceVerifiers(4);
    NoteSigner old = NoteSigner.generate("dev/a", random);
    NoteSigner renewed = NoteSigner.generate("dev/a", random);
    NoteVerifier before = verifiers.of("dev/a", old.publicKey());
    NoteVerifier after = verifiers.of("dev/a", renewed.publicKey());
    assertNotSame(before, after);
    assertTrue(after.verify(MSG, renewed.sign(MSG)));
    assertFalse(after.verify(MSG, old.sign(MSG)), "the old key's signature must not pass");
    assertEquals(1, verifiers.size());
  }

  @Test
  void theKeyPassedInMayChangeLaterWithoutChangingTheRememberedOne() {
    DeviceVerifiers verifiers = new DeviceVerifiers(4);
    NoteSigner key = NoteSigner.generate("dev/a", random);
    byte[] passed = key.publicKey();
    NoteVerifier first = verifiers.of("dev/a", passed);
    passed[0] ^= 1;
    assertSame(first, verifiers.of("dev/a", key.publicKey()));
  }

  @Test
  void atTheBoundTheLeastRecentlyUsedKeyIsDropped() {
    DeviceVerifiers verifiers = new DeviceVerifiers(2);
    NoteSigner a = NoteSigner.generate("dev/a", random);
    NoteSigner b = NoteSigner.generate("dev/b", random);
    NoteSigner c = NoteSigner.generate("dev/c", random);
    NoteVerifier va = verifiers.of("dev/a", a.publicKey());
    NoteVerifier vb = verifiers.of("dev/b", b.publicKey());
    assertSame(va, verifiers.of("dev/a", a.publicKey())); // a used last: b is the eldest
    verifiers.of("dev/c", c.publicKey());
    assertEquals(2, verifiers.size());
    assertSame(va, verifiers.of("dev/a", a.publicKey()));
    assertNotSame(vb, verifiers.of("dev/b", b.publicKey()));
  }

  @Test
  void anInvalidKeyOrBoundIsRefused() {
    DeviceVerifiers verifiers = new DeviceVerifiers(2);
    assertThrows(IllegalArgumentException.class, () -> verifiers.of("dev/a", new byte[31]));
    assertEquals(0, verifiers.size());
    assertThrows(IllegalArgumentException.class, () -> new DeviceVerifiers(0));
  }
}
