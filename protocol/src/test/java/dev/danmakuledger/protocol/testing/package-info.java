/**
 * Test support published in protocol's test-jar for the tests of every module: {@link
 * dev.danmakuledger.protocol.testing.MutableClock}, time moved by hand and never slept for. It
 * lives here, below the testkit, because protocol's own tests need it and the testkit depends on
 * protocol.
 */
package dev.danmakuledger.protocol.testing;
