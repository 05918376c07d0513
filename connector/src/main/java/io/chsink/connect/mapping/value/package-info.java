/**
 * Value writers, one class per ClickHouse type family, each converting a non-null Connect value exactly into its
 * column buffer or throwing {@link io.chsink.connect.mapping.ValueException}. {@link
 * io.chsink.connect.mapping.value.Writers} (by type: supported or not, column buffer, writer, null) and {@link
 * io.chsink.connect.mapping.value.ValueWriter} are the package's whole public surface (the inserting of finished blocks is
 * {@code io.chsink.connect.writer}).
 */
package io.chsink.connect.mapping.value;
