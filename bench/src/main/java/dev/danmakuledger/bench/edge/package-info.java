/**
 * The edge capture benchmark: agent bulk capture and import next to a raw sqlite-jdbc batched
 * insert of the same rows with the same durability, and the latency of one durable local-API ack.
 */
package dev.danmakuledger.bench.edge;
