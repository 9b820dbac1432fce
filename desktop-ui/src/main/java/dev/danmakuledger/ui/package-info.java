/** The JavaFX operator console. */
package dev.danmakuledger.ui;
