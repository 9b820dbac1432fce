/** W3C Trace Context: the {@code traceparent} header an edge agent sends with every batch. */
package dev.danmakuledger.protocol.trace;
