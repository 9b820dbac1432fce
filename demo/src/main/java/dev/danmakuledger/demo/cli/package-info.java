/** {@code bin/demo}, the command line of the demo (docs/demo.md). */
package dev.danmakuledger.demo.cli;
