# shellcheck shell=bash
# Sourced, not run. One RabbitMQ node of our own, beside any other on this machine:
#
#   rabbitmq_node start|stop|restart|status NAME AMQP_PORT MGMT_PORT DIST_PORT [ROOT]
#
#   NAME       the node is NAME@localhost; its files live in /var/lib/rabbitmq/instances/NAME
#              (rabbitmq.conf, enabled_plugins, mnesia/, log/), as seen by the node
#   *_PORT     AMQP and management listen on 127.0.0.1 only; DIST_PORT is the Erlang
#              distribution port (the CLI tools then use DIST_PORT+10000..+10010)
#   ROOT       a directory to chroot into first (a Debian tree with rabbitmq-server installed,
#              see scripts/rabbitmq4.sh); empty or absent: the host's own rabbitmq-server
#
# Idempotent: `start` on a running node and `stop` on a stopped one say so and succeed. The data
# survives stop/start (a restart test needs messages to outlive it). Every node on the machine
# shares one epmd (port 4369), whichever node started it.
#
# Why it looks like this:
# - Everything that makes the node distinct travels in RABBITMQ_* environment variables, not in
#   /etc/rabbitmq, so several nodes can share one installation (a cluster on the host, say).
#   Debian's /usr/sbin wrappers switch to the `rabbitmq` user with `su` (not a login shell), which
#   keeps these variables.
# - The node runs in the foreground of a detached session (setsid), logging to its console.log:
#   this works the same for 3.10 and 4.x, where `-detached` differs.
# - `rabbitmqctl await_startup` fails at once if the node has not registered with epmd yet, so we
#   poll `ping` first; `rabbitmqctl stop` returns before the VM exits, so stop waits for its pid.
#
# Env: RABBITMQ_START_TIMEOUT (default 180 s), RABBITMQ_STOP_TIMEOUT (default 60 s),
#      RABBITMQ_NODE_ERL_ARGS (extra Erlang arguments for the node; default none).

rabbitmq_node() {
  local action=$1 name=$2 amqp=$3 mgmt=$4 dist=$5 root=${6:-}
  local base=/var/lib/rabbitmq/instances/$name
  local node=$name@localhost
  local label=$name
  local start_timeout=${RABBITMQ_START_TIMEOUT:-180} stop_timeout=${RABBITMQ_STOP_TIMEOUT:-60}
  local env=(
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    "HOME=/var/lib/rabbitmq"
    "LANG=C.UTF-8"
    "RABBITMQ_NODENAME=$node"
    "RABBITMQ_DIST_PORT=$dist"
    "RABBITMQ_CONFIG_FILE=$base/rabbitmq.conf"
    "RABBITMQ_ENABLED_PLUGINS_FILE=$base/enabled_plugins"
    "RABBITMQ_MNESIA_BASE=$base/mnesia"
    "RABBITMQ_LOG_BASE=$base/log"
    "RABBITMQ_PID_FILE=$base/node.pid"
    # Extra Erlang arguments for the node, e.g. "-rabbit some_setting 5000" (app env at boot).
    "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS=${RABBITMQ_NODE_ERL_ARGS:-}"
  )
  case "$action" in
    start) _rabbitmq_node_start ;;
    stop) _rabbitmq_node_stop ;;
    restart) _rabbitmq_node_stop && _rabbitmq_node_start ;;
    status) _rabbitmq_node_status ;;
    *)
      echo "rabbitmq_node: unknown action '$action'" >&2
      return 2
      ;;
  esac
}

# The helpers below read rabbitmq_node's locals (bash scoping is dynamic).

_rabbitmq_node_say() { echo "$label: $*"; }
_rabbitmq_node_fail() {
  echo "$label: ERROR: $*" >&2
  _rabbitmq_node_log_tail
  return 1
}

_rabbitmq_node_path() { echo "${root:+$root}$1"; } # a node path as the host sees it

_rabbitmq_node_run() { # run a command as the node sees the world, with its environment
  if [[ -n $root ]]; then
    chroot "$root" /usr/bin/env -i "${env[@]}" "$@"
  else
    env -i "${env[@]}" "$@"
  fi
}

_rabbitmq_node_log_tail() {
  local f
  for f in "$(_rabbitmq_node_path "$base/log")"/{console.log,"$node".log}; do
    [[ -s $f ]] || continue
    echo "---- last lines of $f ----" >&2
    tail -n 25 "$f" >&2
  done
}

_rabbitmq_node_ping() { _rabbitmq_node_run rabbitmqctl -q ping >/dev/null 2>&1; }
_rabbitmq_node_amqp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$amqp") 2>/dev/null; }
_rabbitmq_node_overview() { curl -sf -m 5 -u guest:guest "http://127.0.0.1:$mgmt/api/overview" 2>/dev/null; }
_rabbitmq_node_ready() { _rabbitmq_node_amqp_open && _rabbitmq_node_overview >/dev/null; }
_rabbitmq_node_version() {
  _rabbitmq_node_overview | grep -o '"rabbitmq_version":"[^"]*"' | cut -d'"' -f4 || true
}
_rabbitmq_node_where() { echo "RabbitMQ $(_rabbitmq_node_version), amqp://127.0.0.1:$amqp, http://127.0.0.1:$mgmt"; }

# A zombie has an empty /proc/PID/cmdline, so it does not count as alive.
_rabbitmq_node_pid_alive() { [[ -n $1 && -n $(tr -d '\0' 2>/dev/null <"/proc/$1/cmdline") ]]; }

_rabbitmq_node_configure() {
  local dir
  dir=$(_rabbitmq_node_path "$base")
  mkdir -p "$dir/log" "$dir/mnesia"
  # The config is rewritten on every start, so a port change in the calling script takes effect.
  cat >"$dir/rabbitmq.conf" <<EOF
# Written by scripts/lib/rabbitmq-node.sh on each start; edits here are lost.
listeners.tcp.1 = 127.0.0.1:$amqp
management.tcp.ip = 127.0.0.1
management.tcp.port = $mgmt
loopback_users.guest = true
EOF
  echo '[rabbitmq_management].' >"$dir/enabled_plugins"
  if [[ -n $root ]]; then
    # Without the host's names the Erlang distribution cannot resolve localhost
    # ("epmd_error localhost nxdomain").
    cp /etc/hosts "$root/etc/hosts"
  fi
  _rabbitmq_node_run chown -R rabbitmq:rabbitmq "$base"
}

_rabbitmq_node_start() {
  if _rabbitmq_node_ready; then
    _rabbitmq_node_say "already running ($(_rabbitmq_node_where))"
    return 0
  fi
  local t0=$SECONDS deadline=$((SECONDS + start_timeout))
  if ! _rabbitmq_node_ping; then
    if _rabbitmq_node_amqp_open; then
      _rabbitmq_node_fail "port $amqp is taken by something that is not node $node"
      return 1
    fi
    _rabbitmq_node_configure || return 1
    local console
    console=$(_rabbitmq_node_path "$base/log/console.log")
    # setsid: the node outlives this script and whatever process group called it. It must not
    # inherit the caller's descriptors (a lock held on fd 9, say, would be held for its lifetime).
    if [[ -n $root ]]; then
      # The node reads /proc (its own memory use, the machine's memory). It gets a /proc of its
      # own, mounted in a private mount namespace that ends with the node: nothing stays mounted
      # on the host, and deleting the tree never walks into the host's /proc.
      setsid unshare --mount --propagation private -- \
        sh -c 'mount -t proc proc "$1/proc" && shift && exec chroot "$@"' sh \
        "$root" "$root" /usr/bin/env -i "${env[@]}" rabbitmq-server >"$console" 2>&1 </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
    else
      setsid env -i "${env[@]}" rabbitmq-server >"$console" 2>&1 </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
    fi
    disown
  fi
  until _rabbitmq_node_ping; do
    ((SECONDS < deadline)) || {
      _rabbitmq_node_fail "node $node did not come up within ${start_timeout}s"
      return 1
    }
    sleep 0.5
  done
  local left=$((deadline - SECONDS))
  ((left > 0)) || left=1
  _rabbitmq_node_run rabbitmqctl -q await_startup --timeout "$left" >/dev/null 2>&1 || {
    _rabbitmq_node_fail "node $node did not finish booting within ${start_timeout}s (rabbitmqctl await_startup)"
    return 1
  }
  until _rabbitmq_node_ready; do
    ((SECONDS < deadline)) || {
      _rabbitmq_node_fail "AMQP :$amqp or management :$mgmt not answering within ${start_timeout}s"
      return 1
    }
    sleep 0.5
  done
  _rabbitmq_node_say "started in $((SECONDS - t0))s ($(_rabbitmq_node_where))"
}

_rabbitmq_node_stop() {
  if ! _rabbitmq_node_ping; then
    _rabbitmq_node_say "not running"
    return 0
  fi
  local t0=$SECONDS pid deadline=$((SECONDS + stop_timeout))
  pid=$(_rabbitmq_node_run rabbitmqctl -q eval 'os:getpid().' 2>/dev/null | tr -dc '0-9')
  if ! _rabbitmq_node_run rabbitmqctl -q stop >/dev/null 2>&1 && _rabbitmq_node_ping; then
    _rabbitmq_node_fail "rabbitmqctl stop failed"
    return 1
  fi
  # The VM lingers for a few seconds after `rabbitmqctl stop` returns; wait it out so that a
  # following start does not race the old node for its ports and data files.
  while _rabbitmq_node_pid_alive "$pid" || _rabbitmq_node_amqp_open; do
    ((SECONDS < deadline)) || {
      _rabbitmq_node_fail "node still running ${stop_timeout}s after rabbitmqctl stop (pid ${pid:-?})"
      return 1
    }
    sleep 0.3
  done
  _rabbitmq_node_say "stopped in $((SECONDS - t0))s"
}

_rabbitmq_node_status() {
  if _rabbitmq_node_ready; then
    _rabbitmq_node_say "running ($(_rabbitmq_node_where))"
  elif _rabbitmq_node_ping; then
    _rabbitmq_node_say "node up but not ready (booting or stopping)"
    return 1
  else
    _rabbitmq_node_say "stopped"
    return 3
  fi
}
