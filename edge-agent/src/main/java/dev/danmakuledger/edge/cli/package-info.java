/**
 * The {@code edge-agent} command line (picocli): init, send, import, status, verify, run. The only
 * package that writes to the terminal.
 */
package dev.danmakuledger.edge.cli;
