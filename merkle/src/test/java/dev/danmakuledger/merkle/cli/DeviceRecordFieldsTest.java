package dev.danmakuledger.merkle.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.danmakuledger.merkle.hash.Rfc6962;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * The minimal canonical record reader on the worked example of docs/canonical-record.md (golden
 * vector {@code ascii}) and on hostile variants of it.
 */
class DeviceRecordFieldsTest {
  /** Golden vector {@code ascii}, byte for byte as docs/canonical-record.md lays it out. */
  static final byte[] ASCII =
      HexFormat.of()
          .parseHex(
              "01"
                  + "0000003d"
                  + "6b696f736b2d30313a616c6963653a3137333239"
                  + "35333630303030303a3030313132323333343435"
                  + "3536363737383839396161626263636464656566"
                  + "66"
                  + "00000008"
                  + "6b696f736b2d3031"
                  + "00000009"
                  + "6c6976652e6d61696e"
                  + "00000005"
                  + "616c696365"
                  + "0000000c"
                  + "68656c6c6f2c20776f726c64"
                  + "00"
                  + "01"
                  + "00ffffff"
                  + "19"
                  + "01937c1570000000"
                  + "0000000000000000");

  @Test
  void goldenVectorDecodes() {
    assertEquals(139, ASCII.length);
    assertEquals(
        "d26630d1ab0bb64db4cc276aa831eeb68a985ac4f1851d1728a8e4ad0dadcae6",
        HexFormat.of().formatHex(Rfc6962.leafHash(ASCII)));
    assertEquals(
        new DeviceRecordFields(
            "kiosk-01:alice:1732953600000:00112233445566778899aabbccddeeff", "kiosk-01", 0),
        DeviceRecordFields.decode(ASCII));
  }

  @Test
  void everyTruncationIsRefused() {
    for (int n = 0; n < ASCII.length; n++) {
      byte[] cut = Arrays.copyOf(ASCII, n);
      assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(cut), "" + n);
    }
  }

  @Test
  void hostileInputIsRefused() {
    byte[] trailing = Arrays.copyOf(ASCII, ASCII.length + 1);
    assertTrue(message(trailing).contains("1 bytes after the index"));
    byte[] version = ASCII.clone();
    version[0] = 2;
    assertTrue(message(version).contains("version: got 2"));
    byte[] hugeLength = ASCII.clone();
    hugeLength[1] = (byte) 0xff;
    assertTrue(message(hugeLength).contains("length 4278190141, want at most 208"));
    byte[] presence = ASCII.clone();
    presence[ASCII.length - 23] = 2;
    assertTrue(message(presence).contains("presence: got 2"));
    byte[] otherDevice = ASCII.clone();
    otherDevice[73] = '2';
    assertTrue(message(otherDevice).contains("want the key's \"kiosk-01\""), message(otherDevice));
    assertTrue(message(new byte[2000]).contains("want at most 1652"));
  }

  private static String message(byte[] b) {
    return assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(b))
        .getMessage();
  }
}
