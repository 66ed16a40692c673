import { describe, it } from 'vitest';
import { cli, expectGolden } from './cli-harness';

// Every picture of the example policies, pinned. Add a new example policy to EXAMPLES and run
// UPDATE_GOLDEN=1 npx vitest run test/cli to create its files; review them like code.
const EXAMPLES = ['billing'];
const TARGETS = ['rabbitmq', 'kafka', 'servicebus'];

describe.each(EXAMPLES)('golden pictures of policies/%s.yaml', (example) => {
  it.each(
    TARGETS.flatMap((target) =>
      ['timeline', 'topology'].flatMap((view) => ['mermaid', 'svg'].map((format) => [target, view, format])),
    ),
  )('%s %s as %s', async (target, view, format) => {
    const result = await cli(
      'render',
      `policies/${example}.yaml`,
      '--target',
      target,
      '--view',
      view,
      '--format',
      format,
    );
    if (result.code !== 0) throw new Error(result.err);
    expectGolden(`${example}.${target}.${view}.${format === 'mermaid' ? 'mmd' : 'svg'}`, result.out);
  });
});

// The example policy has no jitter; its edited fixture has full jitter, so bands get pinned too.
describe('golden pictures with jitter bands', () => {
  it.each(['mermaid', 'svg'])(
    'test/golden/fixtures/billing.next.yaml kafka timeline as %s',
    async (format) => {
      const result = await cli(
        'render',
        'test/golden/fixtures/billing.next.yaml',
        '--target',
        'kafka',
        '--format',
        format,
      );
      if (result.code !== 0) throw new Error(result.err);
      expectGolden(`billing.next.kafka.timeline.${format === 'mermaid' ? 'mmd' : 'svg'}`, result.out);
    },
  );
});
