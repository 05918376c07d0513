/**
 * Planning a record into columns: {@link io.chsink.connect.mapping.TableMapping} resolves once per table and per
 * record schema which value field, adapter or record metadata feeds each column and how that column travels
 * ({@link io.chsink.connect.mapping.ColumnCodec}), then appends each record as one row, or rejects it whole with a
 * {@link io.chsink.connect.mapping.RecordMappingException}. Converting the values is left to
 * {@code io.chsink.connect.mapping.value}, which shares only {@link io.chsink.connect.mapping.ValueException} (why
 * a value cannot be written) and the union schema names of {@link io.chsink.connect.mapping.SourceAdapters}.
 */
package io.chsink.connect.mapping;
