#!/usr/bin/env bash
# The whole test run, as `npm test` and CI run it, cheapest step first, stopping at the first red
# one: build, lint, type-check, the API reports and the unit suite (then at the peers' floors and on Node 22 and
# 24), while the local brokers start (installed on first use) and the slow builds run beside them; then every suite against the real brokers, the
# clusters' fault tests, the package as users get it, and `pulumi up` for real. The last lines of
# the output list every step with its result and wall time, the first failing test with its
# assertion message, and the step that failed (scripts/ci-summary.mjs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund

run_dir=$(mktemp -d "${TMPDIR:-/tmp}/retry-topology-test.XXXXXX")
steps=$run_dir/steps
: >"$steps"
declare -A task_pid=()

record() { # NAME RESULT SECONDS KIND [JSON-REPORTS] [LOG]
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "${5:-}" "${6:-}" >>"$steps"
}

kill_tree() { # PID: the process and everything it started
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do kill_tree "$child"; done
  kill "$1" 2>/dev/null || true
}

# A failing step must not leave the builds, the cluster start or the fault tests running after
# this script (a fault run cut short leaves its lock to the next run, which takes it over). The
# brokers' start is left to finish on its own: cut off in apt, it would leave dpkg half done for
# the next run; its output goes to its log, so it holds no pipe of the caller's open.
finish() {
  local rc=$?
  trap - EXIT
  local name
  for name in "${!task_pid[@]}"; do
    [[ $name == "local brokers and chromium" ]] || kill_tree "${task_pid[$name]}"
  done
  node scripts/ci-summary.mjs "$steps" || true
  if [[ $rc -eq 0 ]]; then rm -rf "$run_dir"; else echo "logs and JSON reports of this run: $run_dir"; fi
  exit "$rc"
}
trap finish EXIT

# A step in the foreground: its output as it comes, its result and time recorded; a red step ends
# the run. REPORT, when set, is the step's vitest JSON report.
step() { # NAME KIND COMMAND...
  local name=$1 kind=$2 started=$SECONDS rc=0
  shift 2
  echo "::: $name"
  "$@" || rc=$?
  record "$name" "$([[ $rc -eq 0 ]] && echo ok || echo FAILED)" $((SECONDS - started)) "$kind" "${REPORT:-}"
  [[ $rc -eq 0 ]] || exit "$rc"
}

# Vitest's reporters for a suite: its usual output, skipped tests listed by name, and a JSON report
# ($run_dir/NAME.json) for the summary.
reporters() { # NAME
  echo --reporter=default --reporter=./test/support/skipped-reporter.ts --reporter=json \
    "--outputFile.json=$run_dir/$1.json"
}

# A vitest run as a step.
suite() { # NAME VITEST-ARGS...
  local name=$1
  shift
  # shellcheck disable=SC2046 # the reporter arguments hold no spaces
  REPORT=$run_dir/$name.json step "$name" suite npx vitest run "$@" $(reporters "$name")
}

# A task beside the steps (a build, a broker start, a suite that only waits): its output goes to a
# log, printed when it is awaited, so it does not interleave with the steps'.
start_task() { # NAME COMMAND...
  local name=$1
  shift
  (
    started=$SECONDS
    rc=0
    "$@" || rc=$?
    echo "$rc $((SECONDS - started))" >"$run_dir/$name.rc"
  ) </dev/null >"$run_dir/$name.log" 2>&1 &
  task_pid[$name]=$!
}

# Waits for a task, prints its output and records it; a failed task ends the run, unless SOFT=1.
await_task() { # NAME KIND [JSON-REPORT]
  local name=$1 kind=$2 rc=1 seconds=0
  wait "${task_pid[$name]}" || true
  unset "task_pid[$name]"
  [[ -f $run_dir/$name.rc ]] && read -r rc seconds <"$run_dir/$name.rc"
  echo "::: $name (ran beside the steps above)"
  cat "$run_dir/$name.log"
  if [[ $rc -ne 0 && ${SOFT:-0} == 1 ]]; then
    echo "$name failed; the step that needs it tries again"
    return 0
  fi
  record "$name" "$([[ $rc -eq 0 ]] && echo ok || echo FAILED)" "$seconds" "$kind" "${3:-}" "$run_dir/$name.log"
  [[ $rc -eq 0 ]] || exit "$rc"
}

# Beside the cheap steps: the local brokers (RabbitMQ 3.10, 4.0, 4.3 and Kafka, installed on first
# use), then Debian's headless Chromium for the SVG → PNG test (apt, so after the brokers' apt).
start_task "local brokers and chromium" bash -c 'bash scripts/brokers.sh start && bash scripts/chromium.sh'
# A cold machine builds the Pulumi engine (about 20 min; cached in ~/.cache/retry-topology): under
# CI it starts now, and scripts/pulumi-e2e.sh at the end waits for it (the build holds a lock; a
# failed build is tried again there and then fails the run).
case "${CI:-}" in '' | 0 | false | FALSE | False) ;; *)
  if ! bash scripts/pulumi-engine.sh --check >/dev/null 2>&1; then
    start_task "pulumi engine build" bash scripts/pulumi-engine.sh
  fi
  ;;
esac

step build build npm run --silent build
export RETRY_TOPOLOGY_DIST_BUILT=1 # the unit suite's set-up need not compile dist/ again
step lint check npm run --silent lint
step typecheck check npm run --silent typecheck
# The public surface against the committed API reports (api/; docs/versioning.md).
step "api report" check npm run --silent api:check
suite unit --project unit
# The package at the oldest version of each peer its ranges allow (the devDependencies are the
# newest), and the unit suite and the CLI on the other supported Node majors (22 and 24; every
# other step runs on the machine's Node 20).
step "peer floors" check bash scripts/peer-floors.sh
step "node 22 and 24" check bash scripts/node-versions.sh

await_task "local brokers and chromium" broker
# The GitHub Actions workflows users copy (examples/ci/): actionlint with shellcheck. After the
# brokers' start, whose apt-get it would otherwise wait for on a fresh machine.
step "workflow lint" check bash scripts/actionlint.sh
# The Kafka suite also runs on @confluentinc/kafka-javascript, a native build (minutes, cached in
# ~/.cache/retry-topology), and the fault tests need the three-node RabbitMQ and three-broker Kafka
# clusters (scripts/brokers.sh cluster; about a minute to boot, they stay up like the brokers). Both
# need the packages and jars installed above, and run beside the broker suites.
start_task "confluent client build" bash scripts/confluent.sh
start_task "clusters" bash scripts/brokers.sh cluster start

# A vitest run beside the steps, with its JSON report; awaited with await_task NAME suite REPORT.
start_suite() { # NAME VITEST-ARGS...
  local name=$1
  shift
  # shellcheck disable=SC2046 # the reporter arguments hold no spaces
  start_task "$name" npx vitest run "$@" $(reporters "$name")
}

# The RabbitMQ suites run three times: on 3.10 (in `integration`, with the Kafka suites), and on
# 4.0, then 4.3 (their own projects; vitest.config.mts). The 4.x nodes are brokers of their own
# (a lock each: test/support/local-brokers-lock.ts), so their projects run beside `integration`.
start_suite rabbitmq-4.x --project rabbitmq-4.0 --project rabbitmq-4.3
suite integration --project integration
await_task rabbitmq-4.x suite "$run_dir/rabbitmq-4.x.json"

await_task "confluent client build" build
# The same Kafka files with the runtime on the Confluent client, and its types against the contract.
step "confluent types" check npx tsc -p test/confluent/tsconfig.json
# Beside it, the fault tests: nodes and brokers killed while messages wait (docs/replication.md),
# on the clusters, one vitest process per cluster (each takes its cluster's lock); and the package
# as users get it (test/package/): `npm pack` of a fresh clone, installed with npm into a project
# made like `pulumi new typescript`, compiled under its tsconfig, with every TypeScript snippet of
# README.md and docs/. None of the three shares a broker with another.
KAFKA_CLIENT=confluent start_suite kafka-on-confluent --project integration test/integration/kafka
await_task clusters broker
for broker in rabbitmq kafka; do start_suite "cluster-$broker" --project "cluster-$broker"; done
suite package --project package
for name in kafka-on-confluent cluster-rabbitmq cluster-kafka; do
  await_task "$name" suite "$run_dir/$name.json"
done

# The real Pulumi engine on the local brokers (docs/contributing/pulumi-e2e.md). Under CI=1 it
# builds the engine once (cached in ~/.cache/retry-topology) and fails if it cannot; otherwise it
# skips with one line.
if [[ -n ${task_pid["pulumi engine build"]:-} ]]; then SOFT=1 await_task "pulumi engine build" build; fi
# shellcheck disable=SC2046 # the reporter arguments hold no spaces
REPORT=$run_dir/e2e.json step e2e suite bash scripts/pulumi-e2e.sh $(reporters e2e)
