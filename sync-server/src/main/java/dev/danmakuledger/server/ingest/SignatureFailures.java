package dev.danmakuledger.server.ingest;

import dev.danmakuledger.protocol.error.ErrorCode;
import dev.danmakuledger.protocol.wire.admin.AdminEvent.Severity;
import dev.danmakuledger.server.LedgerException;
import dev.danmakuledger.server.events.AdminHub;
import dev.danmakuledger.server.events.AlertKind;
import dev.danmakuledger.server.events.Events;
import dev.danmakuledger.server.storage.SignatureAttempts;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Failed authentications of the batch endpoint (docs/security.md): checkpoints that do not verify
 * under the enrolled key, and batches for devices nobody enrolled. Whoever sends them proved
 * nothing, so they are counted, never trusted: they never change a device's state, raise at most
 * one alert per device per window (carrying the window's count), and are rate-limited per device
 * and per client address with 429 {@code rate-limited} and {@code Retry-After}.
 *
 * <ul>
 *   <li>Per device: beyond {@code maxPerDevice} recorded failures in a window, further failures for
 *       it are answered 429 and not recorded. Validly signed batches of the device are never
 *       limited, so a flood cannot lock the genuine device out.
 *   <li>Per address: a client address that failed {@code maxPerAddress} times in a window gets 429
 *       for every batch until the window ends, before any work is done.
 * </ul>
 */
public final class SignatureFailures {
  private final SignatureAttempts attempts;
  private final AdminHub admin;
  private final Clock clock;
  private final Duration window;
  private final AttemptLimiter perDevice;
  private final AttemptLimiter perAddress;

  public SignatureFailures(
      SignatureAttempts attempts,
      AdminHub admin,
      Clock clock,
      Duration window,
      int maxPerDevice,
      int maxPerAddress) {
    this.attempts = Objects.requireNonNull(attempts, "attempts");
    this.admin = Objects.requireNonNull(admin, "admin");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.window = Objects.requireNonNull(window, "window");
    this.perDevice = new AttemptLimiter(maxPerDevice, window, clock);
    this.perAddress = new AttemptLimiter(maxPerAddress, window, clock);
  }

  /**
   * Refuses a batch from {@code address} when that address used up its failures for this window.
   *
   * @throws LedgerException RATE_LIMITED with the seconds until the window ends
   */
  public void admit(String address) {
    if (perAddress.isExhausted(address)) {
      throw limited(
          "client address "
              + address
              + " failed to authenticate too often; batches from it are refused",
          perAddress.retryAfterSeconds(address));
    }
  }

  /**
   * Counts a checkpoint for {@code deviceId} that failed verification. Returns normally when it was
   * recorded (the caller answers 403 {@code bad-signature}).
   *
   * @throws LedgerException RATE_LIMITED when the device's or the address's failures for this
   *     window are used up; nothing is recorded then
   */
  public void badSignature(String deviceId, String address) {
    boolean addressOk = perAddress.tryAcquire(address);
    if (!perDevice.tryAcquire(deviceId)) {
      throw limited(
          "too many checkpoints for device "
              + deviceId
              + " failed verification; further failures are not recorded",
          perDevice.retryAfterSeconds(deviceId));
    }
    if (!addressOk) {
      throw limited(
          "client address " + address + " failed to authenticate too often",
          perAddress.retryAfterSeconds(address));
    }
    long now = clock.millis();
    SignatureAttempts.Recorded r =
        attempts.record(
            deviceId, address, now, window, count -> alert(deviceId, address, count, now));
    r.newAlert().ifPresent(a -> admin.publish(Events.of(a)));
  }

  /**
   * Counts a batch for a device that is not enrolled against {@code address}.
   *
   * @throws LedgerException RATE_LIMITED when the address's failures are used up
   */
  public void unknownDevice(String address) {
    if (!perAddress.tryAcquire(address)) {
      throw limited(
          "client address " + address + " failed to authenticate too often",
          perAddress.retryAfterSeconds(address));
    }
  }

  private dev.danmakuledger.server.storage.AlertRow alert(
      String deviceId, String address, long count, long now) {
    Map<String, Object> data = new LinkedHashMap<>();
    data.put("count", count);
    data.put("windowSeconds", window.toSeconds());
    data.put("lastAddress", address);
    data.put("lastAt", Instant.ofEpochMilli(now).toString());
    return Events.alert(
        AlertKind.BAD_SIGNATURE,
        Severity.WARN,
        deviceId,
        count
            + " checkpoint(s) for device "
            + deviceId
            + " did not verify under its enrolled key in this "
            + window.toMinutes()
            + "-minute window (last from "
            + address
            + "); unauthenticated, so the device's state is unchanged. If it persists, someone"
            + " is posting as the device or its key file was replaced",
        data,
        now);
  }

  private static LedgerException limited(String why, long retryAfterSeconds) {
    return new LedgerException(
        ErrorCode.RATE_LIMITED,
        why + "; retry after " + retryAfterSeconds + " s",
        Map.of("retryAfterSeconds", retryAfterSeconds));
  }
}
