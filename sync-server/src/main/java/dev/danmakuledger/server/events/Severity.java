package dev.danmakuledger.server.events;

/** How urgent an operator event is; stored and sent by name (docs/sync-server.md, admin events). */
public enum Severity {
  INFO,
  WARN,
  CRITICAL
}
