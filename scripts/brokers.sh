#!/usr/bin/env bash
# Usage: scripts/brokers.sh start|stop|restart|status
#        scripts/brokers.sh cluster start|stop|restart|status
#        scripts/brokers.sh cluster start-node|stop-node|kill-node NODE
#
# Every local broker the integration tests need (used by .ci/run):
#   RabbitMQ 3.10  amqp://guest:guest@127.0.0.1:5672/, management http://127.0.0.1:15672/
#   RabbitMQ 4.0   amqp://guest:guest@127.0.0.1:5740/, management http://127.0.0.1:15740/
#   RabbitMQ 4.3   amqp://guest:guest@127.0.0.1:5743/, management http://127.0.0.1:15743/
#   Kafka          127.0.0.1:9092
# See scripts/rabbitmq.sh, scripts/rabbitmq4.sh and scripts/kafka.sh for details and knobs.
#
# `cluster` is the clusters for the fault tests, beside the brokers above, on their own ports:
#   RabbitMQ 3.10  rabbit-1, rabbit-2, rabbit-3   amqp://guest:guest@127.0.0.1:5771..5773/
#   Kafka          kafka-1, kafka-2, kafka-3      127.0.0.1:19092..19094
# NODE is one of those names: stop-node shuts it down cleanly, kill-node SIGKILLs it, start-node
# brings it back into its cluster (scripts/rabbitmq-cluster.sh, scripts/kafka-cluster.sh).
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

clusters() { # clusters ACTION: both clusters in parallel; fail if either fails
  local rc=0 rabbit kafka
  "$here/rabbitmq-cluster.sh" "$1" & rabbit=$!
  "$here/kafka-cluster.sh" "$1" & kafka=$!
  wait "$rabbit" || rc=1
  wait "$kafka" || rc=1
  return "$rc"
}

cluster() {
  case "${1:-}" in
    start | stop) clusters "$1" ;;
    restart) clusters stop; clusters start ;;
    status)
      local rc=0
      "$here/rabbitmq-cluster.sh" status || rc=1
      "$here/kafka-cluster.sh" status || rc=1
      return "$rc"
      ;;
    start-node | stop-node | kill-node)
      [[ $# -eq 2 ]] || { echo "usage: $0 cluster $1 NODE" >&2; return 2; }
      case "$2" in
        rabbit-*) "$here/rabbitmq-cluster.sh" "$1" "$2" ;;
        kafka-*) "$here/kafka-cluster.sh" "$1" "$2" ;;
        *) echo "brokers: ERROR: unknown node '$2' (rabbit-1..3, kafka-1..3)" >&2; return 2 ;;
      esac
      ;;
    *) echo "usage: $0 cluster start|stop|restart|status|start-node NODE|stop-node NODE|kill-node NODE" >&2; return 2 ;;
  esac
}

case "${1:-}" in
  cluster) shift; cluster "$@" ;;
  start | stop) all "$1" ;;
  restart) all stop; all start ;;
  status)
    rc=0
    "$here/rabbitmq.sh" status || rc=1
    "$here/rabbitmq4.sh" status || rc=1
    "$here/kafka.sh" status || rc=1
    exit "$rc"
    ;;
  *) echo "usage: $0 start|stop|restart|status | cluster ..." >&2; exit 2 ;;
esac
