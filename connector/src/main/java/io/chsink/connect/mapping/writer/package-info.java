/**
 * Value writers, one class per ClickHouse type family, each converting a non-null Connect value exactly into its
 * column buffer or throwing {@link io.chsink.connect.mapping.ValueException}. {@link
 * io.chsink.connect.mapping.writer.Writers} (by type: supported or not, column buffer, writer, null) and {@link
 * io.chsink.connect.mapping.writer.ValueWriter} are the package's whole public surface; not to be confused with
 * {@code io.chsink.connect.writer}, which inserts finished blocks.
 */
package io.chsink.connect.mapping.writer;
