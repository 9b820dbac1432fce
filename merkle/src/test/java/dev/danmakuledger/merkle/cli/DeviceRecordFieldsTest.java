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

  /** Golden vector {@code ascii} of version 2: the same bytes, version 0x02, then the blind. */
  @Test
  void blindedGoldenVectorDecodes() {
    byte[] v2 = Arrays.copyOf(ASCII, ASCII.length + 16);
    v2[0] = 2;
    System.arraycopy(
        HexFormat.of().parseHex("000102030405060708090a0b0c0d0e0f"), 0, v2, ASCII.length, 16);
    assertEquals(
        "39c06e8573ee8caf5c10beb7b952bac97b7e1b48e3cb5fe137efd48c5e4c58ec",
        HexFormat.of().formatHex(Rfc6962.leafHash(v2)));
    assertEquals(DeviceRecordFields.decode(ASCII), DeviceRecordFields.decode(v2));
    for (int n = ASCII.length; n < v2.length; n++) {
      byte[] cut = Arrays.copyOf(v2, n);
      assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(cut), "" + n);
    }
    byte[] longer = Arrays.copyOf(v2, v2.length + 1);
    assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(longer));
    byte[] v1WithTail = v2.clone();
    v1WithTail[0] = 1;
    assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(v1WithTail));
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
    version[0] = 3;
    assertTrue(message(version).contains("version: got 3"));
    byte[] hugeLength = ASCII.clone();
    hugeLength[1] = (byte) 0xff;
    assertTrue(message(hugeLength).contains("length 4278190141, want at most 208"));
    byte[] presence = ASCII.clone();
    presence[ASCII.length - 23] = 2;
    assertTrue(message(presence).contains("presence: got 2"));
    byte[] otherDevice = ASCII.clone();
    otherDevice[73] = '2';
    assertTrue(message(otherDevice).contains("want the key's \"kiosk-01\""), message(otherDevice));
    assertTrue(message(new byte[2000]).contains("want at most 1668"));
  }

  private static String message(byte[] b) {
    return assertThrows(IllegalArgumentException.class, () -> DeviceRecordFields.decode(b))
        .getMessage();
  }
}
