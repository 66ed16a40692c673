#!/usr/bin/env bash
# Usage: scripts/brokers.sh start|stop|restart|status
#
# Every local broker the integration tests need (used by .ci/run):
#   RabbitMQ 3.10  amqp://guest:guest@127.0.0.1:5672/, management http://127.0.0.1:15672/
#   RabbitMQ 4.0   amqp://guest:guest@127.0.0.1:5740/, management http://127.0.0.1:15740/
#   RabbitMQ 4.3   amqp://guest:guest@127.0.0.1:5743/, management http://127.0.0.1:15743/
#   Kafka          127.0.0.1:9092
# See scripts/rabbitmq.sh, scripts/rabbitmq4.sh and scripts/kafka.sh for details and knobs.
# start/stop run them in parallel (they are independent; on a cold CI machine RabbitMQ 3.10
# comes from apt, 4.x from a Debian tree built once, and Kafka from Maven, all at once).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

all() { # all ACTION: run ACTION on every broker in parallel; fail if any fails
  local rc=0 rabbit rabbit4 kafka
  "$here/rabbitmq.sh" "$1" & rabbit=$!
  "$here/rabbitmq4.sh" "$1" & rabbit4=$!
  "$here/kafka.sh" "$1" & kafka=$!
  wait "$rabbit" || rc=1
  wait "$rabbit4" || rc=1
  wait "$kafka" || rc=1
  if [[ $rc -ne 0 ]]; then
    echo "brokers: ERROR: '$1' failed for at least one broker (see above)" >&2
  fi
  return "$rc"
}

case "${1:-}" in
  start | stop) all "$1" ;;
  restart) all stop; all start ;;
  status)
    rc=0
    "$here/rabbitmq.sh" status || rc=1
    "$here/rabbitmq4.sh" status || rc=1
    "$here/kafka.sh" status || rc=1
    exit "$rc"
    ;;
  *) echo "usage: $0 start|stop|restart|status" >&2; exit 2 ;;
esac
