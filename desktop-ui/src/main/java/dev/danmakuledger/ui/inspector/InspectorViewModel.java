package dev.danmakuledger.ui.inspector;

import dev.danmakuledger.protocol.id.MessageId;
import dev.danmakuledger.protocol.room.AuditBundle;
import dev.danmakuledger.protocol.wire.InclusionProofResponse;
import dev.danmakuledger.protocol.wire.LogState;
import dev.danmakuledger.protocol.wire.RoomMessage;
import dev.danmakuledger.protocol.wire.admin.DeviceKey;
import dev.danmakuledger.ui.client.AdminClient;
import dev.danmakuledger.ui.client.ApiException;
import dev.danmakuledger.ui.client.ServerKeys;
import dev.danmakuledger.ui.live.ConsoleContext;
import dev.danmakuledger.ui.live.Format;
import dev.danmakuledger.ui.proof.InclusionCheck;
import dev.danmakuledger.ui.proof.RoomInclusion;
import dev.danmakuledger.ui.proof.RoomInclusionCheck;
import dev.danmakuledger.ui.proof.Verdict;
import java.util.List;
import java.util.Locale;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/**
 * The message inspector (docs/console.md, "Inspector"): finds one message by idempotency key,
 * message id or room and sequence number, decodes its message id, shows its outcome and place in
 * the device log, then fetches the device's signed checkpoint, enrolled key and the inclusion proof
 * and verifies them locally with {@link InclusionCheck}, and the message's audit bundle and the
 * server's log key and verifies its room-log entry with {@link RoomInclusionCheck}, all in the
 * background.
 */
public final class InspectorViewModel {
  private final ConsoleContext context;
  private final ReadOnlyObjectWrapper<RoomMessage> message = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper decodedId = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper position = new ReadOnlyStringWrapper("");
  private final ReadOnlyObjectWrapper<Verdict> verdict = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyObjectWrapper<RoomInclusion> roomInclusion = new ReadOnlyObjectWrapper<>();
  private final ReadOnlyStringWrapper error = new ReadOnlyStringWrapper("");
  private final ReadOnlyStringWrapper query = new ReadOnlyStringWrapper("");
  private final ReadOnlyBooleanWrapper busy = new ReadOnlyBooleanWrapper();
  private int generation;

  public InspectorViewModel(ConsoleContext context) {
    this.context = context;
  }

  /** The message found, or null. */
  public ReadOnlyObjectProperty<RoomMessage> message() {
    return message.getReadOnlyProperty();
  }

  /** The message id decoded into time, node and sequence; empty if none. */
  public ReadOnlyStringProperty decodedId() {
    return decodedId.getReadOnlyProperty();
  }

  /** Where the message sits in its device log, e.g. "device kiosk-1, index 41 of 120". */
  public ReadOnlyStringProperty position() {
    return position.getReadOnlyProperty();
  }

  /** The local verification result, or null while none. */
  public ReadOnlyObjectProperty<Verdict> verdict() {
    return verdict.getReadOnlyProperty();
  }

  /** The local verification of the message's room-log entry, or null while none. */
  public ReadOnlyObjectProperty<RoomInclusion> roomInclusion() {
    return roomInclusion.getReadOnlyProperty();
  }

  /** Why the last lookup found nothing, in one sentence; empty otherwise. */
  public ReadOnlyStringProperty error() {
    return error.getReadOnlyProperty();
  }

  /** What was last looked up, as typed. */
  public ReadOnlyStringProperty query() {
    return query.getReadOnlyProperty();
  }

  public ReadOnlyBooleanProperty busy() {
    return busy.getReadOnlyProperty();
  }

  /** Looks up what the operator typed and verifies its inclusion proof. */
  public void lookup(String input) {
    query.set(input == null ? "" : input.strip());
    Lookup lookup;
    try {
      lookup = Lookup.parse(input);
    } catch (IllegalArgumentException e) {
      clear();
      error.set(e.getMessage());
      return;
    }
    clear();
    busy.set(true);
    int gen = ++generation;
    context
        .async()
        .run(
            "the inspector lookup",
            () -> inspect(lookup),
            found -> {
              if (gen != generation) {
                return;
              }
              busy.set(false);
              decodedId.set(found.decodedId());
              position.set(found.position());
              message.set(found.message());
              verdict.set(found.verdict());
              roomInclusion.set(found.room());
            },
            e -> {
              if (gen != generation) {
                return;
              }
              busy.set(false);
              error.set(
                  e.kind() == ApiException.Kind.NOT_FOUND
                      ? "No message matches " + input.strip() + "."
                      : e.plainMessage());
              if (e.kind() == ApiException.Kind.UNREACHABLE
                  || e.kind() == ApiException.Kind.UNAUTHORIZED) {
                context.connection().failed(e);
              }
            });
  }

  private void clear() {
    message.set(null);
    decodedId.set("");
    position.set("");
    verdict.set(null);
    roomInclusion.set(null);
    error.set("");
  }

  private Found inspect(Lookup lookup) throws ApiException {
    AdminClient client = context.client();
    RoomMessage m;
    if (lookup instanceof Lookup.ByKey k) {
      m = client.messageByKey(k.key().toString());
    } else if (lookup instanceof Lookup.ById i) {
      m = client.messageById(Long.toString(i.id()));
    } else {
      Lookup.BySeq s = (Lookup.BySeq) lookup;
      m = client.messageBySeq(s.room(), s.seq());
    }
    String decoded = decode(m.messageId());
    if (m.deviceId() == null || m.deviceIndex() == null) {
      return new Found(
          m,
          decoded,
          "not in any device log (" + m.status().name().toLowerCase(Locale.ROOT) + ")",
          new Verdict(
              false, "Nothing to verify: this sequence number holds no device record.", List.of()),
          RoomInclusionCheck.unavailable(
              m, "Nothing to verify: the room log holds a tombstone at this number."));
    }
    LogState log = client.deviceLog(m.deviceId());
    String where =
        "device " + m.deviceId() + ", index " + m.deviceIndex() + " of " + log.verifiedSize();
    Verdict device;
    String deviceLeaf = null;
    if (m.deviceIndex() >= log.verifiedSize()) {
      device =
          new Verdict(
              false,
              "The server has not verified this part of the device log yet (verified size "
                  + log.verifiedSize()
                  + ").",
              List.of());
    } else if (log.checkpoint() == null) {
      device =
          new Verdict(false, "The server holds no signed checkpoint for this device.", List.of());
    } else {
      InclusionProofResponse proof =
          client.inclusionProof(m.deviceId(), m.deviceIndex(), log.verifiedSize());
      DeviceKey key = client.deviceKey(m.deviceId());
      device = InclusionCheck.verify(m, log, proof, key);
      deviceLeaf = proof.leafHashHex();
    }
    return new Found(m, decoded, where, device, room(m, deviceLeaf));
  }

  /** Fetches the message's audit bundle and the server's log key and checks the room-log side. */
  private RoomInclusion room(RoomMessage m, String deviceLeaf) {
    AdminClient client = context.client();
    try {
      AuditBundle bundle = client.auditBundle(m.room(), m.seq());
      ServerKeys keys = client.serverKeys();
      return RoomInclusionCheck.verify(m, bundle, keys.logVerifierKey(), deviceLeaf);
    } catch (ApiException e) {
      return RoomInclusionCheck.unavailable(
          m,
          switch (e.kind()) {
            case CONFLICT ->
                "The room log has not integrated seq " + m.seq() + " yet; look it up again soon.";
            case NOT_FOUND -> "The server has no room-log bundle for this message.";
            default -> "The room-log bundle could not be read: " + e.plainMessage();
          });
    }
  }

  private String decode(String messageId) {
    if (messageId == null) {
      return "";
    }
    try {
      MessageId id = MessageId.decode(Long.parseLong(messageId));
      return "created "
          + Format.dateTime(id.timestamp().toString(), context.clock().getZone())
          + ", node "
          + id.nodeId()
          + ", sequence "
          + id.sequence();
    } catch (IllegalArgumentException e) {
      return "not a valid message id: " + messageId;
    }
  }

  private record Found(
      RoomMessage message,
      String decodedId,
      String position,
      Verdict verdict,
      RoomInclusion room) {}
}
