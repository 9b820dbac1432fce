package dev.danmakuledger.lua;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Which version of each script the runner uses, changeable while the server runs: a stable version
 * and optionally a canary version that serves a configured share of calls, which can be promoted or
 * rolled back without a restart (docs/lua-scripts.md, "Canary and rollback"). Thread-safe.
 */
public final class ScriptRegistry {
  /** Names of the bundled scripts. */
  public static final String ADMIT = "admit";

  /** Name of the seed script. */
  public static final String SEED = "seed";

  /** Name of the lease script. */
  public static final String LEASE = "lease";

  private record Slot(LuaScript stable, LuaScript canary, double share) {}

  private final Map<String, Slot> slots = new HashMap<>();
  private final DoubleSupplier random;

  private ScriptRegistry(DoubleSupplier random) {
    this.random = Objects.requireNonNull(random, "random");
  }

  /** The bundled admit, seed and lease scripts as stable versions, no canary. */
  public static ScriptRegistry bundled() {
    return bundled(() -> ThreadLocalRandom.current().nextDouble());
  }

  /**
   * Like {@link #bundled()}, with the draw that picks canary calls: a call runs the canary when
   * {@code random} returns a value below the share; it must return values in [0, 1).
   */
  public static ScriptRegistry bundled(DoubleSupplier random) {
    ScriptRegistry registry = new ScriptRegistry(random);
    for (String name : new String[] {ADMIT, SEED, LEASE}) {
      registry.slots.put(name, new Slot(LuaScript.bundled(name), null, 0.0));
    }
    return registry;
  }

  /** The stable version of {@code name}. */
  public synchronized LuaScript stable(String name) {
    return slot(name).stable();
  }

  /** The canary version of {@code name}, if one is set. */
  public synchronized Optional<LuaScript> canary(String name) {
    return Optional.ofNullable(slot(name).canary());
  }

  /**
   * Routes {@code share} (0..1) of the calls of {@code candidate.name()} to {@code candidate}.
   * Replaces an existing canary of that script.
   *
   * @throws IllegalArgumentException if the script is unknown, the candidate has the stable version
   *     number, or share is outside [0, 1]
   */
  public synchronized void setCanary(LuaScript candidate, double share) {
    Objects.requireNonNull(candidate, "candidate");
    if (!(share >= 0.0 && share <= 1.0)) {
      throw new IllegalArgumentException("canary share: got " + share + ", want 0..1");
    }
    Slot slot = slot(candidate.name());
    if (candidate.version() == slot.stable().version()) {
      throw new IllegalArgumentException(
          "canary version of "
              + candidate.name()
              + ": got "
              + candidate.version()
              + ", want a version other than the stable "
              + slot.stable().version());
    }
    slots.put(candidate.name(), new Slot(slot.stable(), candidate, share));
  }

  /** Stops the canary of {@code name}: every call runs the stable version again. */
  public synchronized void rollback(String name) {
    Slot slot = slot(name);
    slots.put(name, new Slot(slot.stable(), null, 0.0));
  }

  /**
   * Makes the canary of {@code name} the stable version.
   *
   * @throws IllegalStateException if no canary is set
   */
  public synchronized void promote(String name) {
    Slot slot = slot(name);
    if (slot.canary() == null) {
      throw new IllegalStateException("promote " + name + ": got no canary, want one set");
    }
    slots.put(name, new Slot(slot.canary(), null, 0.0));
  }

  /** The version one call of {@code name} runs: the canary for its share of calls. */
  LuaScript select(String name) {
    Slot slot;
    synchronized (this) {
      slot = slot(name);
    }
    if (slot.canary() != null && random.getAsDouble() < slot.share()) {
      return slot.canary();
    }
    return slot.stable();
  }

  private Slot slot(String name) {
    Slot slot = slots.get(name);
    if (slot == null) {
      throw new IllegalArgumentException(
          "script: got '" + name + "', want one of " + slots.keySet());
    }
    return slot;
  }
}
