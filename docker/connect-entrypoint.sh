#!/bin/bash
# Starts a Kafka Connect distributed worker from the repository's config/connect-distributed.properties, with
# every CONNECT_<KEY> environment variable appended as <key>=<value> (lower case, '_' -> '.'; a later key wins
# when Java reads the file), the convention of Confluent's cp-kafka-connect image.
set -euo pipefail
base=/opt/kafka/config/chsink-connect-distributed.properties
props=/tmp/connect-distributed.properties
cp "$base" "$props"
{
  echo
  echo "# from the CONNECT_* environment variables"
  env | grep '^CONNECT_' | sort | while IFS='=' read -r name value; do
    key=$(echo "${name#CONNECT_}" | tr '[:upper:]' '[:lower:]' | tr '_' '.')
    echo "${key}=${value}"
  done
} >> "$props"
exec /opt/kafka/bin/connect-distributed.sh "$props"
