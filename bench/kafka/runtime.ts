import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The Kafka runtime the benchmarks measure: by default the build in dist/ (tsc's output, what
 * users run; `npm run build` first), or with BENCH_RUNTIME=source the TypeScript sources as tsx
 * compiles them on the fly, whose module wrappers add a getter call to every import used.
 */
type KafkaRuntime = typeof import('../../runtime/kafka');

export const BENCH_RUNTIME = process.env.BENCH_RUNTIME === 'source' ? 'source' : 'dist';

function load(): KafkaRuntime {
  if (BENCH_RUNTIME === 'source') return require('../../runtime/kafka') as KafkaRuntime;
  const built = join(__dirname, '../../dist/runtime/kafka/index.js');
  if (!existsSync(built)) {
    throw new Error('dist/ is not built: run `npm run build` (or set BENCH_RUNTIME=source)');
  }
  return require(built) as KafkaRuntime;
}

export const kafkaRuntime: KafkaRuntime = load();
