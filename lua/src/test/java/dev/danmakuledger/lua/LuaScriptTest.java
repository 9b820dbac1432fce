package dev.danmakuledger.lua;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LuaScriptTest {
  @Test
  void bundledScriptsDeclareTheirVersionAndDocumentTheirContract() {
    Map<String, Integer> versions = Map.of("admit", 3, "seed", 2, "lease", 1);
    for (String name : List.of("admit", "seed", "lease")) {
      LuaScript s = LuaScript.bundled(name);
      assertEquals(versions.get(name), s.version(), name);
      assertEquals(40, s.sha1().length(), name);
      assertTrue(s.source().contains("-- KEYS[1]"), name + " documents KEYS");
      assertTrue(s.source().contains("-- ARGV[1]"), name + " documents ARGV");
      assertTrue(s.source().contains("-- Returns"), name + " documents the reply");
      assertTrue(s.source().contains("-- Errors"), name + " documents the errors");
    }
  }

  @Test
  void sha1IsTheDigestRedisNamesTheScriptBy() {
    // Printed by `redis-cli SCRIPT LOAD` for this exact source (Redis 7.0.15).
    String source = "-- version: 1\nlocal VERSION = 1\nreturn 1";
    assertEquals("48358262e974dd39aa552197761de8b433f29588", LuaScript.of("x", source).sha1());
  }

  @Test
  void versionHeaderAndConstantMustAgree() {
    assertThrows(
        IllegalArgumentException.class,
        () -> LuaScript.of("x", "-- version: 2\nlocal VERSION = 1\n"));
    assertThrows(
        IllegalArgumentException.class,
        () -> new LuaScript("x", 3, "-- version: 2\nlocal VERSION = 2\n"));
    assertThrows(IllegalArgumentException.class, () -> LuaScript.of("x", "local VERSION = 1\n"));
    assertThrows(IllegalArgumentException.class, () -> LuaScript.of("x", "-- version: 1\n"));
    assertThrows(
        IllegalArgumentException.class,
        () -> LuaScript.of("Admit!", "-- version: 1\nlocal VERSION = 1\n"));
    assertThrows(
        IllegalArgumentException.class,
        () -> LuaScript.of("x", "-- version: 0\nlocal VERSION = 0\n"));
  }
}
