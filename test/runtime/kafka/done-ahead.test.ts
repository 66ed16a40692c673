import { describe, expect, it } from 'vitest';
import { DoneAhead } from '../../../runtime/kafka/done-ahead';

describe('DoneAhead', () => {
  it('knows a record carried out by its offset and timestamp, until the commit passes it', () => {
    const ahead = new DoneAhead();
    ahead.add(5n, '1700000000000');
    ahead.add(7n, '1700000000001');
    expect(ahead.has(5n, '1700000000000')).toBe(true);
    // Another record at that offset (the topic created again): not done.
    expect(ahead.has(5n, '1700000009999')).toBe(false);
    expect(ahead.has(6n, '1700000000000')).toBe(false);
    ahead.committed(6n);
    expect(ahead.has(5n, '1700000000000')).toBe(false);
    expect(ahead.has(7n, '1700000000001')).toBe(true);
    expect(ahead.size).toBe(1);
  });
});
