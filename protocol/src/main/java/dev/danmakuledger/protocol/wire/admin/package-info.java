/** Request and response bodies of the operator admin API. */
package dev.danmakuledger.protocol.wire.admin;
