package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class ScriptRegistryTest {
  /** The bundled admit's version. */
  private static final int STABLE = LuaScript.bundled("admit").version();

  /** The bundled admit under the next version number. */
  private static LuaScript admitNext() {
    String stable = LuaScript.bundled("admit").source();
    return LuaScript.of(
        "admit",
        stable
            .replace("-- version: " + STABLE, "-- version: " + (STABLE + 1))
            .replace("local VERSION = " + STABLE, "local VERSION = " + (STABLE + 1)));
  }

  @Test
  void canaryServesExactlyItsShareOfDraws() {
    AtomicInteger draw = new AtomicInteger();
    ScriptRegistry registry = ScriptRegistry.bundled(() -> (draw.getAndIncrement() % 100) / 100.0);
    registry.setCanary(admitNext(), 0.25);
    int canary = 0;
    for (int i = 0; i < 1000; i++) {
      if (registry.select("admit").version() == STABLE + 1) {
        canary++;
      }
    }
    assertEquals(250, canary);
    assertEquals(
        LuaScript.bundled("seed").version(),
        registry.select("seed").version(),
        "other scripts are untouched");
  }

  @Test
  void rollbackAndPromote() {
    ScriptRegistry registry = ScriptRegistry.bundled(() -> 0.0);
    registry.setCanary(admitNext(), 1.0);
    assertEquals(STABLE + 1, registry.select("admit").version());
    registry.rollback("admit");
    assertEquals(STABLE, registry.select("admit").version());
    assertTrue(registry.canary("admit").isEmpty());
    assertThrows(IllegalStateException.class, () -> registry.promote("admit"));
    registry.setCanary(admitNext(), 0.0);
    assertEquals(STABLE, registry.select("admit").version(), "share 0 never runs the canary");
    registry.promote("admit");
    assertEquals(STABLE + 1, registry.stable("admit").version());
    assertEquals(STABLE + 1, registry.select("admit").version());
  }

  @Test
  void malformedCanariesAreRefused() {
    ScriptRegistry registry = ScriptRegistry.bundled();
    assertThrows(IllegalArgumentException.class, () -> registry.setCanary(admitNext(), 1.5));
    assertThrows(IllegalArgumentException.class, () -> registry.setCanary(admitNext(), -0.1));
    assertThrows(IllegalArgumentException.class, () -> registry.setCanary(admitNext(), Double.NaN));
    assertThrows(
        IllegalArgumentException.class,
        () -> registry.setCanary(LuaScript.bundled("admit"), 0.5),
        "same version as stable");
    assertThrows(
        IllegalArgumentException.class,
        () ->
            registry.setCanary(
                LuaScript.of("evict", "-- version: 2\nlocal VERSION = 2\nreturn {2}"), 0.5),
        "unknown script");
    assertThrows(IllegalArgumentException.class, () -> registry.rollback("nope"));
  }
}
