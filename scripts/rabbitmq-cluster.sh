#!/usr/bin/env bash
# Usage: scripts/rabbitmq-cluster.sh start|stop|restart|status
#        scripts/rabbitmq-cluster.sh start-node|stop-node|kill-node NODE    (NODE: rabbit-1, rabbit-2, rabbit-3)
#        scripts/rabbitmq-cluster.sh urls                               # the AMQP URLs, comma-separated
#
# A three-node RabbitMQ cluster (Debian's 3.10.8, the host's own installation) for the fault
# tests, beside the single node of scripts/rabbitmq.sh:
#   rabbit-1@localhost  amqp://guest:guest@127.0.0.1:5771/  http://127.0.0.1:15771/  dist 25771
#   rabbit-2@localhost  amqp://guest:guest@127.0.0.1:5772/  http://127.0.0.1:15772/  dist 25772
#   rabbit-3@localhost  amqp://guest:guest@127.0.0.1:5773/  http://127.0.0.1:15773/  dist 25773
#   data                /var/lib/rabbitmq/instances/<node>/  (survives a node's stop/start; a
#                       `start` with no node running forms the cluster afresh, see below)
# Every node has the management plugin. They share the `rabbitmq` user's Erlang cookie.
#
# Why it looks like this:
# - Each node is started by scripts/lib/rabbitmq-node.sh (its own node name, ports and data
#   directory). On the first start the nodes are independent; rabbit-2 and rabbit-3 then join
#   rabbit-1 (stop_app, join_cluster, start_app). A node that is already a member is left alone,
#   so `start` is idempotent and a stopped or killed node comes back into the same cluster.
# - A `start` that finds no node running forms the cluster afresh: it deletes the three nodes'
#   databases first. Booting three 3.10.8 nodes that were clustered, all at once (as after a
#   machine restart, or a run killed with its cluster), can fail: a node syncing feature flags
#   with a peer whose feature-flag registry is still being built gets `{badmap,undefined}`
#   (incompatible_feature_flags), its rabbit application exits, and the other two wait for its
#   tables until they time out. Fresh nodes boot alone and then join, which never meets a peer
#   mid-boot. Nothing of value is lost: the fault tests delete their topology when they end, and
#   only keep data across a node's own stop/start or kill, with its peers running.
# - The three start in parallel: fresh nodes do not wait for each other, and a node that was
#   stopped alone comes back to running peers.
# - stop-node is a clean shutdown (rabbitmqctl stop: the node hands its quorum queue leaderships
#   over); kill-node is SIGKILL of the Erlang VM, a crash.
#
# Env: RABBITMQ_START_TIMEOUT, RABBITMQ_STOP_TIMEOUT (see scripts/lib/rabbitmq-node.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib/rabbitmq-node.sh
source "$here/lib/rabbitmq-node.sh"
export PATH="/usr/local/sbin:/usr/sbin:/sbin:$PATH"

NODES=(rabbit-1 rabbit-2 rabbit-3)
# At-least-once dead-lettering (how a wait queue returns messages) publishes through a worker that
# waits this long for a confirm before sending again. When the target queue's leader dies with
# messages in flight (checked on 3.10.8), those and every message behind them wait out this
# timeout: 180 s by default. The docs (docs/replication.md) recommend the same setting.
export RABBITMQ_NODE_ERL_ARGS="-rabbit dead_letter_worker_publisher_confirm_timeout ${RABBITMQ_DLX_CONFIRM_TIMEOUT_MS:-5000}"
SEED=rabbit-1
INSTANCES=/var/lib/rabbitmq/instances
JOIN_TIMEOUT="${RABBITMQ_START_TIMEOUT:-180}"

say() { echo "rabbitmq-cluster: $*"; }
die() { echo "rabbitmq-cluster: ERROR: $*" >&2; exit 1; }

node_index() {
  case "$1" in
    rabbit-1) echo 1 ;; rabbit-2) echo 2 ;; rabbit-3) echo 3 ;;
    *) die "unknown node '$1' (expected one of: ${NODES[*]})" ;;
  esac
}
amqp_port() { echo $((5770 + $(node_index "$1"))); }
node() { # node ACTION NAME: the shared node helper with this node's ports
  local i
  i=$(node_index "$2")
  rabbitmq_node "$1" "$2" "$((5770 + i))" "$((15770 + i))" "$((25770 + i))"
}
ctl() { # ctl NODE ARGS...: rabbitmqctl against one node (Debian's wrapper runs it as `rabbitmq`)
  local target=$1
  shift
  rabbitmqctl -q -n "$target@localhost" "$@"
}
urls() {
  local list="" each
  for each in "${NODES[@]}"; do list+="${list:+,}amqp://guest:guest@127.0.0.1:$(amqp_port "$each")"; done
  echo "$list"
}

# The running members as one node sees them, one name a line.
running_members() {
  ctl "$1" eval 'lists:foreach(fun(N) -> io:format("~s~n", [N]) end, rabbit_nodes:all_running()).' 2>/dev/null |
    grep '@' || true
}
is_member() { # is_member NODE: rabbit-1 counts NODE among the cluster's nodes
  local members # captured first: `grep -q` on a pipe could end the CLI early (pipefail)
  members=$(ctl "$SEED" eval 'lists:foreach(fun(N) -> io:format("~s~n", [N]) end, rabbit_nodes:all()).' 2>/dev/null) || true
  grep -qx "$1@localhost" <<<"$members"
}

join() { # join NODE: make NODE a member of rabbit-1's cluster, unless it is one
  local target=$1
  [[ $target == "$SEED" ]] && return 0
  is_member "$target" && return 0
  ctl "$target" stop_app >/dev/null || die "$target: stop_app failed"
  ctl "$target" join_cluster "$SEED@localhost" >/dev/null || die "$target: join_cluster $SEED@localhost failed"
  ctl "$target" start_app >/dev/null || die "$target: start_app failed"
  say "$target joined $SEED"
}

await_running() { # await_running NODE...: each listed node runs as a member, as rabbit-1 sees it
  local deadline=$((SECONDS + JOIN_TIMEOUT)) each missing
  local seen_from=$SEED
  for (( ; ; )); do
    missing=()
    # Ask a node that is itself up: rabbit-1 may be the one that was stopped.
    for each in "${NODES[@]}"; do
      if ctl "$each" ping >/dev/null 2>&1; then seen_from=$each; break; fi
    done
    local running
    running=$(running_members "$seen_from")
    for each in "$@"; do grep -qx "$each@localhost" <<<"$running" || missing+=("$each"); done
    ((${#missing[@]} == 0)) && return 0
    ((SECONDS < deadline)) || die "not running in the cluster within ${JOIN_TIMEOUT}s: ${missing[*]}"
    sleep 1
  done
}

in_parallel() { # in_parallel ACTION NODE...: `node ACTION` for each, at once; fails if any failed
  local pids=() each rc=0
  for each in "${@:2}"; do node "$1" "$each" & pids+=($!); done
  for each in "${pids[@]}"; do wait "$each" || rc=1; done
  return "$rc"
}

require_installed() {
  command -v rabbitmq-server >/dev/null 2>&1 ||
    die "rabbitmq-server is not installed: run scripts/brokers.sh start (or scripts/rabbitmq.sh start) first"
}

any_running() {
  local each
  for each in "${NODES[@]}"; do ctl "$each" ping >/dev/null 2>&1 && return 0; done
  return 1
}

# forget_cluster: with no node running, delete every node's database (its queues, its membership),
# so that the next start forms a new cluster (see the top of this file for why).
forget_cluster() {
  local each had=()
  for each in "${NODES[@]}"; do
    if [[ -d $INSTANCES/$each/mnesia ]]; then
      had+=("$each")
      rm -rf "${INSTANCES:?}/$each/mnesia"
    fi
  done
  ((${#had[@]} == 0)) || say "no node was running: forming the cluster afresh (deleted the databases of ${had[*]})"
}

cmd_start() {
  require_installed
  local t0=$SECONDS each
  any_running || forget_cluster
  in_parallel start "${NODES[@]}" || die "a node did not start (see above)"
  for each in "${NODES[@]}"; do join "$each"; done
  await_running "${NODES[@]}"
  say "running: ${NODES[*]} in $((SECONDS - t0))s ($(urls))"
}

cmd_start_node() {
  require_installed
  node start "$1"
  join "$1"
  await_running "$1"
}

cmd_kill_node() {
  local target=$1 pid file="$INSTANCES/$1/node.pid"
  pid=$(tr -dc '0-9' 2>/dev/null <"$file" || true)
  if [[ -z $pid ]] || ! _rabbitmq_node_pid_alive "$pid"; then
    say "$target not running"
    return 0
  fi
  kill -KILL "$pid"
  while _rabbitmq_node_pid_alive "$pid"; do sleep 0.1; done
  say "$target killed (pid $pid)"
}

cmd_status() {
  local each up=0
  for each in "${NODES[@]}"; do
    if node status "$each"; then up=$((up + 1)); fi
  done
  ((up == ${#NODES[@]})) && return 0
  ((up == 0)) && return 3
  return 1
}

case "${1:-}" in
  start) cmd_start ;;
  stop) in_parallel stop "${NODES[@]}" ;;
  restart) in_parallel stop "${NODES[@]}"; cmd_start ;;
  status) cmd_status ;;
  start-node) [[ $# -eq 2 ]] || die "usage: $0 start-node NODE"; node_index "$2" >/dev/null; cmd_start_node "$2" ;;
  stop-node) [[ $# -eq 2 ]] || die "usage: $0 stop-node NODE"; node_index "$2" >/dev/null; node stop "$2" ;;
  kill-node) [[ $# -eq 2 ]] || die "usage: $0 kill-node NODE"; node_index "$2" >/dev/null; cmd_kill_node "$2" ;;
  urls) urls ;;
  *) echo "usage: $0 start|stop|restart|status|start-node NODE|stop-node NODE|kill-node NODE|urls" >&2; exit 2 ;;
esac
