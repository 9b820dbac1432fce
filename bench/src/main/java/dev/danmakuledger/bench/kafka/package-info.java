/**
 * {@code bin/bench kafka} (docs/benchmarks.md, kafka): the Kafka relay's throughput next to a raw
 * idempotent producer sending the same records to the same broker, and the commit-to-Kafka lag at
 * the live shape; a real KRaft broker started for the run.
 */
package dev.danmakuledger.bench.kafka;
