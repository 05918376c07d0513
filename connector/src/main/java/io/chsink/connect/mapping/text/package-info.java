/**
 * Strict parsers of the text that values carry for typed columns: ISO-8601 dates and timestamps ({@link
 * io.chsink.connect.mapping.text.IsoTimestamps}) and JSON documents ({@link io.chsink.connect.mapping.text.JsonText}).
 * Text they cannot read is a {@link io.chsink.connect.mapping.ValueException}, never a guess.
 */
package io.chsink.connect.mapping.text;
