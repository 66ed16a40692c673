#!/usr/bin/env bash
# The whole test run, as `npm test` and CI run it: local brokers up (installed on first use),
# then build, lint, type-check, every test against the real brokers, and `pulumi up` for real.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

[[ -d node_modules ]] || npm ci --no-audit --no-fund
bash scripts/brokers.sh start
# The SVG → PNG test renders in Debian's headless Chromium.
bash scripts/chromium.sh
npm run --silent build
npm run --silent lint
npm run --silent typecheck
# The RabbitMQ suites run three times: on 3.10 (in `integration`), then 4.0, then 4.3 (their own
# projects, one after the other; vitest.config.mts). Skipped tests are listed by name at the end.
npx vitest run --project unit --project integration --project rabbitmq-4.0 --project rabbitmq-4.3 \
  --reporter=default --reporter=./test/support/skipped-reporter.ts
# The real Pulumi engine on the local brokers (docs/pulumi-e2e.md). Under CI=1 it builds the engine
# once (cached in ~/.cache/retry-topology) and fails if it cannot; otherwise it skips with one line.
bash scripts/pulumi-e2e.sh
