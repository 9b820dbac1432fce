/**
 * The Kafka relay (docs/kafka.md): publishes every CONFIRMED message to a Kafka topic exactly once,
 * in confirmation-cursor order per room, read from SQL, with the relay's positions committed in the
 * same Kafka transaction as the records; and the topic check that compares a topic with the ledger.
 */
package dev.danmakuledger.server.kafka;
