/** The message inspector: lookup, message-id decoding and local proof verification. */
package dev.danmakuledger.ui.inspector;
