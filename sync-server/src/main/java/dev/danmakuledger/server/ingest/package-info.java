/** The write side: enrolment, the verified batch pipeline (ARCHITECTURE §4) and review. */
package dev.danmakuledger.server.ingest;
