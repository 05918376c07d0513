package io.chsink.connect.convert.avro;

/**
 * Schema registry contexts in subject names, {@code :.context:subject}, as Confluent's client reads them
 * (io.confluent.kafka.schemaregistry.utils.QualifiedSubject, default tenant): a subject without that prefix is in
 * the default context {@code .}.
 */
final class Subjects {
    static final String DEFAULT_CONTEXT = ".";

    private Subjects() {
    }

    /**
     * The context of a subject: {@code .ctx} for {@code :.ctx:name}, {@code .ctx} for {@code :.ctx} alone, {@code *}
     * for {@code :*:name}, else the default context {@code .} (so {@code :.:name} too).
     */
    static String context(String subject) {
        if (subject == null) {
            return DEFAULT_CONTEXT;
        }
        if (subject.startsWith(":.")) {
            int end = subject.indexOf(':', 2);
            return end >= 0 ? subject.substring(1, end) : subject.substring(1);
        }
        if (subject.startsWith(":*:")) {
            return "*";
        }
        return DEFAULT_CONTEXT;
    }

    /**
     * The subject a schema reference names, as QualifiedSubject.qualifySubjectWithParent gives it: a reference
     * subject in a context of its own stays as it is; one in the default context moves into the context of the
     * referencing schema's subject ({@code parent}), when that is not the default context. The reference's text is
     * kept whole behind the parent's context, so {@code :.:name} referenced from {@code :.ctx:s} is
     * {@code :.ctx::.:name}, as Confluent's client asks for it.
     */
    static String qualifyWithParent(String parent, String reference) {
        if (!DEFAULT_CONTEXT.equals(context(reference))) {
            return reference;
        }
        String parentContext = context(parent);
        return DEFAULT_CONTEXT.equals(parentContext) ? reference : ":" + parentContext + ":" + reference;
    }
}
