package dev.danmakuledger.server.events;

/** The type of an operator event on {@code /admin/events}, sent by name. */
public enum EventType {
  ALERT,
  DEVICE,
  MESSAGE
}
