#!/usr/bin/env bash
# Usage: scripts/brokers.sh start|stop|restart|status
#
# Both local brokers the integration tests need (used by .ci/run):
#   RabbitMQ  amqp://guest:guest@127.0.0.1:5672/, management http://127.0.0.1:15672/
#   Kafka     127.0.0.1:9092
# See scripts/rabbitmq.sh and scripts/kafka.sh for details and environment knobs.
# start/stop run the two in parallel (they are independent; this roughly halves the
# wall time on a cold CI machine, where RabbitMQ comes from apt and Kafka from Maven).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

both() { # both ACTION: run ACTION on both brokers in parallel; fail if either fails
  local rc=0 rabbit kafka
  "$here/rabbitmq.sh" "$1" & rabbit=$!
  "$here/kafka.sh" "$1" & kafka=$!
  wait "$rabbit" || rc=1
  wait "$kafka" || rc=1
  if [[ $rc -ne 0 ]]; then
    echo "brokers: ERROR: '$1' failed for at least one broker (see above)" >&2
  fi
  return "$rc"
}

case "${1:-}" in
  start | stop) both "$1" ;;
  restart) both stop; both start ;;
  status)
    rc=0
    "$here/rabbitmq.sh" status || rc=1
    "$here/kafka.sh" status || rc=1
    exit "$rc"
    ;;
  *) echo "usage: $0 start|stop|restart|status" >&2; exit 2 ;;
esac
