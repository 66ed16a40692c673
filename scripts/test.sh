#!/usr/bin/env bash
# The whole test run, as `npm test` and CI run it: local brokers up (installed on first use),
# then build, lint, type-check, every test against the real brokers, and `pulumi up` for real.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund
# A cold machine builds the Pulumi engine (about 20 min; cached in ~/.cache/retry-topology): under
# CI it starts now, beside the brokers and the tests, and scripts/pulumi-e2e.sh at the end waits for
# it (the build holds a lock; a failed build is tried again there and then fails the run).
engine_log=$(mktemp)
engine_build=
case "${CI:-}" in '' | 0 | false | FALSE | False) ;; *)
  if ! bash scripts/pulumi-engine.sh --check >/dev/null 2>&1; then
    bash scripts/pulumi-engine.sh >"$engine_log" 2>&1 &
    engine_build=$!
  fi
  ;;
esac
bash scripts/brokers.sh start
# The SVG → PNG test renders in Debian's headless Chromium.
bash scripts/chromium.sh
# The Kafka suite also runs on @confluentinc/kafka-javascript, a native build (minutes, cached in
# ~/.cache/retry-topology): started now, after the apt installs above, and waited for below.
confluent_log=$(mktemp)
bash scripts/confluent.sh >"$confluent_log" 2>&1 &
confluent_build=$!
# The three-node RabbitMQ and three-broker Kafka clusters of the fault tests (scripts/brokers.sh
# cluster): they need the packages and jars installed above, and boot while the build and the
# other suites run (about a minute; they stay up like the brokers above).
cluster_log=$(mktemp)
bash scripts/brokers.sh cluster start >"$cluster_log" 2>&1 &
cluster_start=$!
# A failing step below must not leave the builds, the cluster start or the fault tests running
# after this script (a fault run cut short leaves its lock to the next run, which takes it over).
fault_pids=()
trap 'kill "$confluent_build" "$cluster_start" ${engine_build:+"$engine_build"} ${fault_pids[@]+"${fault_pids[@]}"} 2>/dev/null || true' EXIT
npm run --silent build
npm run --silent lint
npm run --silent typecheck
# The RabbitMQ suites run three times: on 3.10 (in `integration`), then 4.0, then 4.3 (their own
# projects, one after the other; vitest.config.mts). Skipped tests are listed by name at the end.
npx vitest run --project unit --project integration --project rabbitmq-4.0 --project rabbitmq-4.3 \
  --reporter=default --reporter=./test/support/skipped-reporter.ts
if ! wait "$confluent_build"; then
  cat "$confluent_log" >&2
  exit 1
fi
cat "$confluent_log"
rm -f "$confluent_log"
# The same Kafka files with the runtime on the Confluent client, and its types against the contract.
npx tsc -p test/confluent/tsconfig.json
KAFKA_CLIENT=confluent npx vitest run --project integration test/integration/kafka \
  --reporter=default --reporter=./test/support/skipped-reporter.ts
# The fault tests: nodes and brokers killed while messages wait (docs/replication.md). One vitest
# process per cluster (each takes its cluster's lock), side by side and beside the package project
# below, which only compiles: most of their time is waiting for failovers. Their output is
# printed when they end, so it does not interleave.
if ! wait "$cluster_start"; then
  cat "$cluster_log" >&2
  exit 1
fi
cat "$cluster_log"
cluster_started=$SECONDS
fault_pids=()
for broker in rabbitmq kafka; do
  npx vitest run --project "cluster-$broker" --reporter=default \
    --reporter=./test/support/skipped-reporter.ts >"$cluster_log.$broker" 2>&1 &
  fault_pids+=($!)
done
# The package as users get it (test/package/): `npm pack` of a fresh clone, installed with npm into a
# project made like `pulumi new typescript`, compiled under its tsconfig, with every TypeScript
# snippet of README.md and docs/. Run apart from the broker suites, so its compilers do not load
# their timing; the fault tests beside it spend their time waiting, and allow for a loaded machine.
npx vitest run --project package --reporter=default --reporter=./test/support/skipped-reporter.ts
fault_rc=0
for pid in "${fault_pids[@]}"; do
  wait "$pid" || fault_rc=1
done
cat "$cluster_log.rabbitmq" "$cluster_log.kafka"
rm -f "$cluster_log" "$cluster_log.rabbitmq" "$cluster_log.kafka"
echo "cluster fault tests: $((SECONDS - cluster_started))s (beside the package project)"
[[ $fault_rc -eq 0 ]] || exit 1
# The real Pulumi engine on the local brokers (docs/pulumi-e2e.md). Under CI=1 it builds the engine
# once (cached in ~/.cache/retry-topology) and fails if it cannot; otherwise it skips with one line.
if [[ -n $engine_build ]] && ! wait "$engine_build"; then
  cat "$engine_log" >&2
fi
rm -f "$engine_log"
bash scripts/pulumi-e2e.sh
