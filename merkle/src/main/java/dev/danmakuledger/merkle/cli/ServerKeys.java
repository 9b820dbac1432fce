package dev.danmakuledger.merkle.cli;

import dev.danmakuledger.merkle.checkpoint.CosignatureVerifier;
import dev.danmakuledger.merkle.checkpoint.NoteVerifier;
import java.util.Set;

/**
 * A sync server's public keys as {@code GET /v1/server/keys} serves them (docs/room-log.md, "Server
 * keys"): the room-log verifier key (C2SP vkey, type 0x01) and the cosigner key of its
 * device-checkpoint receipts (type 0x04, C2SP tlog-cosignature {@code cosignature/v1}).
 */
record ServerKeys(NoteVerifier log, CosignatureVerifier cosigner) {
  /**
   * Parses the keys document.
   *
   * @throws IllegalArgumentException if it is not exactly the two keys, each valid
   */
  static ServerKeys parse(String json) {
    JsonObject o =
        JsonObject.of(
            "server keys", Json.parse(json), Set.of("logVerifierKey", "cosignerVerifierKey"));
    NoteVerifier log;
    try {
      log = NoteVerifier.parse(o.string("logVerifierKey"));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("logVerifierKey: " + e.getMessage(), e);
    }
    try {
      return new ServerKeys(log, CosignatureVerifier.parse(o.string("cosignerVerifierKey")));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("cosignerVerifierKey: " + e.getMessage(), e);
    }
  }
}
