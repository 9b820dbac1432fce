package dev.danmakuledger.ui.client;

/**
 * The sync server's public keys, {@code GET /v1/server/keys} (docs/room-log.md, "Server keys"): the
 * room-log verifier key (C2SP vkey, type 0x01) and the cosigner key of its receipts (type 0x04,
 * C2SP tlog-cosignature). Both are parsed and checked by the caller that uses them.
 */
public record ServerKeys(String logVerifierKey, String cosignerVerifierKey) {
  public ServerKeys {
    if (logVerifierKey == null || cosignerVerifierKey == null) {
      throw new IllegalArgumentException("server keys: got a null key, want both");
    }
  }
}
