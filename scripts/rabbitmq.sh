#!/usr/bin/env bash
# Usage: scripts/rabbitmq.sh start|stop|restart|status
#
# Installs (Debian package, RabbitMQ 3.10.x on bookworm), starts, waits for and
# stops a local RabbitMQ broker for tests and CI. Idempotent: `start` on a running
# broker and `stop` on a stopped one just say so and exit 0.
#
#   AMQP        amqp://guest:guest@127.0.0.1:5672/   (guest is loopback-only by default)
#   management  http://guest:guest@127.0.0.1:15672/  (rabbitmq_management plugin)
#   data        /var/lib/rabbitmq/mnesia  (package default; survives stop/start, which
#               is what the "restart the broker with messages in queues" fault test needs)
#   logs        /var/log/rabbitmq/
#
# Why it looks like this:
# - There is no systemd/init here (and CI is a fresh machine), so we never rely on the
#   package's service: the install runs with a policy-rc.d that forbids service
#   starts, and we start the node ourselves with `rabbitmq-server -detached`.
# - The Debian wrappers in /usr/sbin re-exec as the `rabbitmq` user when run as root,
#   so the node, its cookie and its files all belong to `rabbitmq`.
# - `rabbitmqctl await_startup` fails at once if the node has not registered with epmd
#   yet, so we first poll `rabbitmqctl ping`, then await_startup, then the ports.
# - `rabbitmqctl stop` returns a few seconds before the Erlang VM has really exited;
#   `stop` waits for the VM's OS pid to disappear so that an immediate `start` is safe.
#
# Env: RABBITMQ_START_TIMEOUT (default 120 s), RABBITMQ_STOP_TIMEOUT (default 60 s).
set -euo pipefail

export PATH="/usr/local/sbin:/usr/sbin:/sbin:$PATH"
export DEBIAN_FRONTEND=noninteractive

START_TIMEOUT="${RABBITMQ_START_TIMEOUT:-120}"
STOP_TIMEOUT="${RABBITMQ_STOP_TIMEOUT:-60}"
HOST=127.0.0.1
AMQP_PORT=5672
MGMT_PORT=15672
LOG_DIR=/var/log/rabbitmq

say() { echo "rabbitmq: $*"; }
die() { echo "rabbitmq: ERROR: $*" >&2; exit 1; }

log_tail() {
  local f
  for f in "$LOG_DIR"/rabbit@*.log "$LOG_DIR"/detached.log "$LOG_DIR"/startup_err; do
    [[ -s "$f" && "$f" != *_upgrade.log ]] || continue
    echo "---- last lines of $f ----" >&2
    tail -n 20 "$f" >&2
  done
}

installed() { command -v rabbitmq-server >/dev/null 2>&1 && command -v rabbitmqctl >/dev/null 2>&1; }

ensure_installed() {
  installed && return 0
  [[ $(id -u) -eq 0 ]] || die "rabbitmq-server is not installed and we are not root to apt-get install it"
  # Forbid the package's postinst from starting the service (no init system here; we
  # start the node ourselves). Keep an existing policy-rc.d (e.g. the container's).
  local policy=/usr/sbin/policy-rc.d added_policy=0
  if [[ ! -e $policy ]]; then
    printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && added_policy=1
  fi
  local log rc=0
  log=$(mktemp)
  apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=300 rabbitmq-server >"$log" 2>&1 || {
    # Package lists missing or stale: refresh once and retry.
    apt-get update -o DPkg::Lock::Timeout=300 >>"$log" 2>&1 && apt-get install -y --no-install-recommends -o DPkg::Lock::Timeout=300 rabbitmq-server >>"$log" 2>&1
  } || rc=$?
  if [[ $added_policy -eq 1 ]]; then rm -f "$policy"; fi
  if [[ $rc -ne 0 ]]; then
    tail -n 20 "$log" >&2
    rm -f "$log"
    die "apt-get install rabbitmq-server failed (exit $rc)"
  fi
  rm -f "$log"
  installed || die "rabbitmq-server still not on PATH after apt-get install"
}

ensure_management_plugin() {
  # --offline only edits /etc/rabbitmq/enabled_plugins; skip the ~1 s CLI when it is done.
  if ! grep -qs 'rabbitmq_management' /etc/rabbitmq/enabled_plugins; then
    rabbitmq-plugins enable --offline rabbitmq_management >/dev/null ||
      die "could not enable rabbitmq_management (rabbitmq-plugins enable --offline)"
  fi
}

node_up()   { rabbitmqctl -q ping >/dev/null 2>&1; }
amqp_open() { (exec 3<>"/dev/tcp/$HOST/$AMQP_PORT") 2>/dev/null; }
mgmt_ok()   { curl -sf -m 5 -u guest:guest "http://$HOST:$MGMT_PORT/api/overview" >/dev/null 2>&1; }
ready()     { amqp_open && mgmt_ok; }

version() {
  curl -sf -m 5 -u guest:guest "http://$HOST:$MGMT_PORT/api/overview" 2>/dev/null |
    grep -o '"rabbitmq_version":"[^"]*"' | cut -d'"' -f4 || true
}

# A zombie has an empty /proc/PID/cmdline, so it does not count as alive.
pid_alive() { [[ -n $1 && -n $(tr -d '\0' 2>/dev/null <"/proc/$1/cmdline") ]]; }

beam_pid() { rabbitmqctl -q eval 'os:getpid().' 2>/dev/null | tr -dc '0-9'; }

cmd_start() {
  ensure_installed
  if ready; then
    say "already running (RabbitMQ $(version), amqp://$HOST:$AMQP_PORT, http://$HOST:$MGMT_PORT)"
    return 0
  fi
  ensure_management_plugin
  local t0=$SECONDS deadline=$((SECONDS + START_TIMEOUT))
  if ! node_up; then
    # -detached daemonizes the Erlang VM; the wrapper runs it as the rabbitmq user.
    rabbitmq-server -detached >"$LOG_DIR/detached.log" 2>&1 ||
      { log_tail; die "rabbitmq-server -detached failed"; }
  fi
  until node_up; do
    ((SECONDS < deadline)) || { log_tail; die "node did not come up within ${START_TIMEOUT}s"; }
    sleep 0.5
  done
  local left=$((deadline - SECONDS))
  ((left > 0)) || left=1
  rabbitmqctl -q await_startup --timeout "$left" >/dev/null 2>&1 ||
    { log_tail; die "node did not finish booting within ${START_TIMEOUT}s (rabbitmqctl await_startup)"; }
  until ready; do
    ((SECONDS < deadline)) || {
      log_tail
      die "AMQP $HOST:$AMQP_PORT or management API $HOST:$MGMT_PORT not answering within ${START_TIMEOUT}s"
    }
    sleep 0.5
  done
  say "started in $((SECONDS - t0))s (RabbitMQ $(version), amqp://$HOST:$AMQP_PORT, http://$HOST:$MGMT_PORT)"
}

cmd_stop() {
  if ! installed || ! node_up; then
    say "not running"
    return 0
  fi
  local t0=$SECONDS pid deadline=$((SECONDS + STOP_TIMEOUT))
  pid=$(beam_pid)
  if ! rabbitmqctl -q stop >/dev/null 2>&1; then
    if node_up; then die "rabbitmqctl stop failed"; fi
  fi
  # The VM lingers for a few seconds after `rabbitmqctl stop` returns; wait it out so
  # that a following start does not race the old node for its ports and Mnesia files.
  while pid_alive "$pid" || amqp_open; do
    ((SECONDS < deadline)) || die "node still running ${STOP_TIMEOUT}s after rabbitmqctl stop (pid ${pid:-?})"
    sleep 0.3
  done
  say "stopped in $((SECONDS - t0))s"
}

cmd_status() {
  if ! installed; then
    say "not installed"
    return 3
  fi
  if ready; then
    say "running (RabbitMQ $(version), amqp://$HOST:$AMQP_PORT, http://$HOST:$MGMT_PORT)"
  elif node_up; then
    say "node up but not ready (booting or stopping)"
    return 1
  else
    say "stopped"
    return 3
  fi
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  restart) cmd_stop; cmd_start ;;
  status) cmd_status ;;
  *) echo "usage: $0 start|stop|restart|status" >&2; exit 2 ;;
esac
