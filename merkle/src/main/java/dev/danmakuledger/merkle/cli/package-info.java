/** The {@code tlog} auditor command line over the merkle module. */
package dev.danmakuledger.merkle.cli;
