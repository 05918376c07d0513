#!/bin/bash
# The quickstart's one-shot setup (docker-compose.yml, service "setup", in the apache/kafka image): creates the
# ClickHouse table and the Kafka topic, creates the connector from the repository's
# config/clickhouse-sink-schemaless.json (mounted at /config) with the compose network's ClickHouse URL, and
# produces $SAMPLE_EVENTS plain-JSON events plus one bad record (it goes to the dead-letter topic events-dlq).
set -euo pipefail
CLICKHOUSE=http://clickhouse:8123
CONNECT=http://connect:8083
BOOTSTRAP=kafka:9092
EXAMPLE=/config/clickhouse-sink-schemaless.json
EVENTS=${SAMPLE_EVENTS:-1000}
http() { busybox wget -q -O- "$@"; }

until http "$CLICKHOUSE/ping" >/dev/null 2>&1; do sleep 1; done
http --post-data "CREATE TABLE IF NOT EXISTS default.events (event_time DateTime, user_id UInt64,
  event_type LowCardinality(String), url String, duration_ms UInt32, country LowCardinality(String),
  revenue Decimal(10,2)) ENGINE = MergeTree PARTITION BY toYYYYMM(event_time) ORDER BY (event_time, user_id)" "$CLICKHOUSE/"
echo "setup: table default.events ready"

/opt/kafka/bin/kafka-topics.sh --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic events \
  --partitions 2 --replication-factor 1

until http "$CONNECT/connector-plugins" 2>/dev/null | grep -q io.chsink.connect.ClickHouseSinkConnector; do
  echo "setup: waiting for the Connect worker to list the connector"; sleep 3
done
name=$(grep -o '"name": *"[^"]*"' "$EXAMPLE" | head -1 | sed 's/.*"\([^"]*\)"$/\1/')
if http "$CONNECT/connectors/$name" >/dev/null 2>&1; then
  echo "setup: connector $name exists already"
else
  # The example as it is, but for the ClickHouse URL: localhost there, the compose service here.
  sed 's#"http://localhost:8123"#"http://clickhouse:8123"#' "$EXAMPLE" > /tmp/connector.json
  http --header 'Content-Type: application/json' --post-file /tmp/connector.json "$CONNECT/connectors" >/dev/null
  echo "setup: connector $name created from $EXAMPLE"
fi

countries=(DE FR US JP BR IN GB CA)
types=(view click purchase signup)
{
  for ((i = 0; i < EVENTS; i++)); do
    printf '{"event_time":"2026-01-%02dT%02d:%02d:00Z","user_id":%d,"event_type":"%s","url":"/page/%d","duration_ms":%d,"country":"%s","revenue":%d.%02d}\n' \
      $((i % 28 + 1)) $((i % 24)) $((i % 60)) $((1000 + i % 97)) "${types[i % 4]}" $((i % 50)) $((i * 37 % 5000)) \
      "${countries[i % 8]}" $((i % 30)) $((i % 100))
  done
  echo '{"event_time":"2026-01-01T00:00:00Z","user_id":"not a number","event_type":"view","url":"/","duration_ms":1,"country":"DE","revenue":0}'
} | /opt/kafka/bin/kafka-console-producer.sh --bootstrap-server "$BOOTSTRAP" --topic events
echo "setup: produced $EVENTS events and 1 bad record to topic events"
