package io.chsink.connect.schema;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class TableIdTest {
    @Test
    void quotesEveryIdentifierAndEscapesBackticksAndBackslashes() {
        assertEquals("`db`.`events`", new TableId("db", "events").quoted());
        assertEquals("`default`.`a\\`b; DROP TABLE x`", new TableId("default", "a`b; DROP TABLE x").quoted());
        assertEquals("`x\\\\y`", TableId.quote("x\\y"));
        assertEquals("`my.topic-1`", TableId.quote("my.topic-1"));
    }
}
