/** The danmaku record, its canonical bytes and the wire types of the HTTP API. */
package dev.danmakuledger.protocol;
