import { describe, it } from 'vitest';
import { cli, expectGolden } from './cli-harness';

// The pull-request comment for two typical edits of the example policy, pinned: one that only
// changes timing (plus a level and partitions), one that renames the main queue.
describe('golden diff Markdown', () => {
  it.each([
    ['billing.next', 'longer waits, one more attempt, full jitter, more partitions'],
    ['billing.renamed', 'a renamed main queue'],
  ])('policies/billing.yaml → test/golden/fixtures/%s.yaml (%s)', async (fixture) => {
    const result = await cli('diff', 'policies/billing.yaml', `test/golden/fixtures/${fixture}.yaml`);
    if (result.code !== 0) throw new Error(result.err);
    expectGolden(`diff.${fixture}.md`, result.out);
  });
});
