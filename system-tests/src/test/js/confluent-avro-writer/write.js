'use strict';
/*
 * Writes Avro records with Confluent's JavaScript Schema Registry client (@confluentinc/schemaregistry, the version
 * pinned in package.json) for AvroConfluentClientTest, against the registry it is given:
 *
 *   node write.js --registry URL --topic TOPIC --out FILE [--modules DIR] [--per-version N]
 *
 * --modules is the directory holding node_modules (the test's cached `npm ci`), this directory by default.
 *
 * What it does, all through the client's own API:
 * 1. registers a shared record type chsink.it.Money in two versions under the subject chsink.it.Money (version 2
 *    adds a nullable decimal field), and the value schema chsink.it.Order under TOPIC-value, referencing Money
 *    version 1 (SchemaRegistryClient.register with references);
 * 2. serializes N records with AvroSerializer and useLatestVersion (Order version 1), alternating the two framings:
 *    the id in front of the value (the default, PrefixSchemaIdSerializer) and the schema GUID in the
 *    __value_schema_id header (schemaIdSerializer: HeaderSchemaIdSerializer); the keys are strings that an
 *    AvroSerializer with autoRegisterSchemas registers under TOPIC-key itself, framed as their values;
 * 3. registers Order again, now referencing Money version 2 (the same schema text, other references: another id),
 *    and serializes N more records with a new client and serializers, which take it as the latest;
 * 4. soft-deletes Money version 1 through DELETE /subjects/{subject}/versions/{version}: first while Order version 1
 *    still references it (the registry must refuse with 42206), then after soft-deleting Order version 1;
 * 5. reads every record back with AvroDeserializer (DualSchemaIdDeserializer, the default: header first, then
 *    the prefix) and checks it equals what was written.
 *
 * The output file is one JSON document: "records" (in the order to produce them: the two Order versions
 * interleaved), each with the key and value bytes and the headers in base64, the framing, the Order and Money
 * versions and the row it must become, decimals as strings; and "facts" the test checks.
 */
const fs = require('fs');
const path = require('path');
const { createRequire } = require('module');

function parseArgs(argv) {
    const out = { modules: __dirname, perVersion: 10 };
    for (let i = 0; i < argv.length; i += 2) {
        const value = argv[i + 1];
        switch (argv[i]) {
            case '--registry': out.registry = value; break;
            case '--topic': out.topic = value; break;
            case '--out': out.out = value; break;
            case '--modules': out.modules = value; break;
            case '--per-version': out.perVersion = Number(value); break;
            default: throw new Error(`unknown argument ${argv[i]}`);
        }
    }
    for (const required of ['registry', 'topic', 'out']) {
        if (!out[required]) {
            throw new Error(`--${required} is required`);
        }
    }
    return out;
}

const args = parseArgs(process.argv.slice(2));
const sr = createRequire(path.join(path.resolve(args.modules), 'package.json'))('@confluentinc/schemaregistry');
const { SchemaRegistryClient, AvroSerializer, AvroDeserializer, SerdeType, SubjectNameStrategyType,
    HeaderSchemaIdSerializer, RestError } = sr;

const MONEY_SUBJECT = 'chsink.it.Money';
const MONEY_NAME = 'chsink.it.Money';
const decimal = (precision, scale) => ({ type: 'bytes', logicalType: 'decimal', precision, scale });
const MONEY_V1 = {
    type: 'record', name: 'Money', namespace: 'chsink.it', fields: [
        { name: 'amount', type: decimal(18, 4) },
        { name: 'currency', type: 'string' },
    ],
};
const MONEY_V2 = {
    type: 'record', name: 'Money', namespace: 'chsink.it', fields: [
        { name: 'amount', type: decimal(18, 4) },
        { name: 'currency', type: 'string' },
        { name: 'rate', type: ['null', decimal(9, 6)], default: null },
    ],
};
const ORDER = {
    type: 'record', name: 'Order', namespace: 'chsink.it', fields: [
        { name: 'id', type: 'int' },
        { name: 'label', type: 'string' },
        { name: 'price', type: MONEY_NAME },
        { name: 'total', type: { type: 'fixed', name: 'Total', size: 16, logicalType: 'decimal', precision: 38, scale: 9 } },
    ],
};

// Values chosen for their edges: the largest and smallest of each precision, one unit of the scale, zero, text
// that needs escaping in SQL and TSV, characters outside the BMP.
const AMOUNTS = ['99999999999999.9999', '-99999999999999.9999', '0.0001', '-0.0001', '0', '12345.6789', '-1.5'];
const TOTALS = ['99999999999999999999999999999.999999999', '-99999999999999999999999999999.999999999',
    '0.000000001', '-0.000000001', '0', '1234567890.123456789'];
const RATES = ['999.999999', '-999.999999', '0.000001', null, '1.25'];
const LABELS = ['plain', 'ünïcødé ☃ 𝄞', 'tab\there', "quote ' and \\ backslash", '', 'new\nline'];
const CURRENCIES = ['EUR', 'USD', 'CHF', 'JPY'];

/** The unscaled value of a decimal string at a scale, as a BigInt (refusing more fraction digits than the scale). */
function unscaled(text, scale) {
    const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
    if (!m) {
        throw new Error(`not a decimal: ${text}`);
    }
    const fraction = m[3] || '';
    if (fraction.length > scale) {
        throw new Error(`${text} has more than ${scale} fraction digits`);
    }
    const digits = BigInt(m[2] + fraction.padEnd(scale, '0'));
    return m[1] === '-' ? -digits : digits;
}

/** Two's-complement big-endian bytes of a BigInt: the fewest that hold it, or exactly `size` (sign-extended). */
function twosComplement(value, size) {
    let bytes = 1;
    while (value < -(1n << BigInt(8 * bytes - 1)) || value >= (1n << BigInt(8 * bytes - 1))) {
        bytes++;
    }
    const length = size === undefined ? bytes : size;
    if (bytes > length) {
        throw new Error(`${value} does not fit ${length} bytes`);
    }
    let v = BigInt.asUintN(8 * length, value);
    const out = Buffer.alloc(length);
    for (let i = length - 1; i >= 0; i--) {
        out[i] = Number(v & 0xffn);
        v >>= 8n;
    }
    return out;
}

/** Record i (1-based) for an Order version: the Avro datum and the row it must become. */
function record(i, orderVersion) {
    const amount = AMOUNTS[i % AMOUNTS.length];
    const total = TOTALS[i % TOTALS.length];
    const rate = orderVersion === 2 ? RATES[i % RATES.length] : null;
    const label = LABELS[i % LABELS.length];
    const currency = CURRENCIES[i % CURRENCIES.length];
    const price = { amount: twosComplement(unscaled(amount, 4)), currency };
    if (orderVersion === 2) {
        price.rate = rate === null ? null : twosComplement(unscaled(rate, 6));
    }
    const datum = { id: i, label, price, total: twosComplement(unscaled(total, 9), 16) };
    return { datum, row: { id: i, label, amount, currency, rate, total, key: `k-${i} ☃` } };
}

function topicNames(conf) {
    return { ...conf, subjectNameStrategyType: SubjectNameStrategyType.TOPIC };
}

/** Serializes records from..to with Order as the latest value schema, alternating prefix and header framing. */
async function writeVersion(from, to, orderVersion) {
    // A client and serializers per Order version: the serializers cache the Avro type by schema text alone, and the
    // two Order versions have the same text (only their references differ); the client caches the latest version.
    const client = new SchemaRegistryClient({ baseURLs: [args.registry] });
    const values = {
        prefix: new AvroSerializer(client, SerdeType.VALUE, topicNames({ useLatestVersion: true })),
        header: new AvroSerializer(client, SerdeType.VALUE,
            topicNames({ useLatestVersion: true, schemaIdSerializer: HeaderSchemaIdSerializer })),
    };
    const keys = {
        prefix: new AvroSerializer(client, SerdeType.KEY, topicNames({ autoRegisterSchemas: true })),
        header: new AvroSerializer(client, SerdeType.KEY,
            topicNames({ autoRegisterSchemas: true, schemaIdSerializer: HeaderSchemaIdSerializer })),
    };
    const out = [];
    for (let i = from; i <= to; i++) {
        const framing = i % 2 === 0 ? 'header' : 'prefix';
        const { datum, row } = record(i, orderVersion);
        const headers = {};
        const key = await keys[framing].serialize(args.topic, row.key, headers);
        const value = await values[framing].serialize(args.topic, datum, headers);
        out.push({ framing, orderVersion, moneyVersion: orderVersion, datum, key, value, headers, row });
    }
    return out;
}

async function registerOrder(client, moneyVersion) {
    return client.register(`${args.topic}-value`, {
        schemaType: 'AVRO',
        schema: JSON.stringify(ORDER),
        references: [{ name: MONEY_NAME, subject: MONEY_SUBJECT, version: moneyVersion }],
    });
}

async function latestVersion(client, subject) {
    const versions = await client.getAllVersions(subject);
    return versions[versions.length - 1];
}

/** The error code of a failing registry call, or null when it succeeds. */
async function errorCodeOf(call) {
    try {
        await call();
        return null;
    } catch (e) {
        if (e instanceof RestError) {
            return e.errorCode;
        }
        throw e;
    }
}

function sameDatum(a, b) {
    return JSON.stringify(a, (k, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v))
        === JSON.stringify(b, (k, v) => (v && v.type === 'Buffer' ? Buffer.from(v.data).toString('hex') : v));
}

async function main() {
    const n = args.perVersion;
    const facts = {};
    const setup = new SchemaRegistryClient({ baseURLs: [args.registry] });
    facts.moneyIds = [await setup.register(MONEY_SUBJECT, { schemaType: 'AVRO', schema: JSON.stringify(MONEY_V1) })];
    facts.moneyVersions = [await latestVersion(setup, MONEY_SUBJECT)];
    facts.moneyIds.push(await setup.register(MONEY_SUBJECT, { schemaType: 'AVRO', schema: JSON.stringify(MONEY_V2) }));
    facts.moneyVersions.push(await latestVersion(setup, MONEY_SUBJECT));
    facts.orderIds = [await registerOrder(setup, facts.moneyVersions[0])];
    facts.orderVersions = [await latestVersion(setup, `${args.topic}-value`)];
    const first = await writeVersion(1, n, 1);
    facts.orderIds.push(await registerOrder(setup, facts.moneyVersions[1]));
    facts.orderVersions.push(await latestVersion(setup, `${args.topic}-value`));
    const second = await writeVersion(n + 1, 2 * n, 2);

    // Soft-delete the referenced Money version 1: refused while Order version 1 references it, then allowed.
    facts.deleteReferencedError = await errorCodeOf(() => setup.deleteSubjectVersion(MONEY_SUBJECT, facts.moneyVersions[0]));
    facts.deletedOrderVersion = await setup.deleteSubjectVersion(`${args.topic}-value`, facts.orderVersions[0]);
    facts.deletedMoneyVersion = await setup.deleteSubjectVersion(MONEY_SUBJECT, facts.moneyVersions[0]);
    const after = new SchemaRegistryClient({ baseURLs: [args.registry] });
    facts.deletedVersionWithoutFlagError = await errorCodeOf(() => after.getSchemaMetadata(MONEY_SUBJECT, facts.moneyVersions[0], false));
    facts.deletedVersionWithFlag = (await after.getSchemaMetadata(MONEY_SUBJECT, facts.moneyVersions[0], true)).deleted === true;

    // Interleave the two Order versions, then read every record back as a consumer would, after the deletes.
    const records = [];
    for (let i = 0; i < Math.max(first.length, second.length); i++) {
        records.push(...[first[i], second[i]].filter(r => r !== undefined));
    }
    facts.readBack = 0;
    for (const r of records) {
        // a deserializer per record: its Avro type cache is keyed by schema text, which the Order versions share
        const deserializer = new AvroDeserializer(after, SerdeType.VALUE, topicNames({}));
        const keyDeserializer = new AvroDeserializer(after, SerdeType.KEY, topicNames({}));
        const value = await deserializer.deserialize(args.topic, r.value, r.headers);
        const key = await keyDeserializer.deserialize(args.topic, r.key, r.headers);
        if (!sameDatum(value, r.datum) || key !== r.row.key) {
            throw new Error(`record ${r.row.id} reads back as ${JSON.stringify(value)} / ${key}`);
        }
        facts.readBack++;
    }
    const json = {
        client: JSON.parse(fs.readFileSync(path.join(path.resolve(args.modules), 'node_modules', '@confluentinc',
            'schemaregistry', 'package.json'), 'utf8')).version,
        facts,
        records: records.map(r => ({
            framing: r.framing,
            orderVersion: r.orderVersion,
            moneyVersion: r.moneyVersion,
            key: r.key.toString('base64'),
            value: r.value.toString('base64'),
            headers: Object.entries(r.headers).map(([name, v]) => ({ name, value: Buffer.from(v).toString('base64') })),
            row: r.row,
        })),
    };
    fs.writeFileSync(args.out, JSON.stringify(json, null, 1));
    console.log(`wrote ${records.length} records (client ${json.client}) to ${args.out}`);
}

main().catch(e => {
    console.error(e && e.stack ? e.stack : e);
    process.exit(1);
});
