package io.chsink.connect.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Names as one query parameter: hex of their UTF-8 bytes, so that no character needs escaping. */
class HexNamesTest {
    @Test
    void everyByteTravelsAsTwoHexDigits() {
        assertEquals("61,C3A92C,5C6E27", HexNames.of(List.of("a", "é,", "\\n'")),
                "a comma inside a name is hex too: only the separators are commas");
        assertEquals("", HexNames.of(List.of()));
        assertEquals("arrayMap(x -> unhex(x), splitByChar(',', {tbls:String}))", HexNames.sql("tbls"));
    }
}
