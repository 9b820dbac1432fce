/**
 * The store audit ({@code edge-agent verify}): recomputes the device log from the stored leaves and
 * checks it against every signed checkpoint (RFC 9162 §2.1, C2SP tlog-checkpoint).
 */
package dev.danmakuledger.edge.verify;
