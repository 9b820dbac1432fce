package dev.danmakuledger.bench.tamper;

/**
 * The attacks of {@code bin/bench tamper} (docs/benchmarks.md), each applied to a copy of a device.
 * {@code agentCanSee} is false for copies that are internally consistent logs (a clone, a restored
 * backup): only the witness, the server, can tell them from the real device.
 */
enum Attack {
  EDITED_RECORD("edited-record", true),
  DELETED_RECORD("deleted-record", true),
  REORDERED_RECORDS("reordered-records", true),
  FORGED_SIGNATURE("forged-signature", true),
  CLONED_DEVICE("cloned-device", false),
  REPLAYED_BATCH("replayed-batch", true),
  ROLLED_BACK_STORE("rolled-back-store", false);

  final String label;
  final boolean agentCanSee;

  Attack(String label, boolean agentCanSee) {
    this.label = label;
    this.agentCanSee = agentCanSee;
  }
}
