import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type DeadLetter, readArchive, writeArchive } from '../../../runtime/dead-letters';

const letter: DeadLetter = {
  id: 'abc123',
  location: 'orders.dlq',
  messageId: 'm-1',
  reason: 'broker-rejected',
  brokerReason: 'rejected',
  replays: 0,
  deadLetteredAt: 1_700_000_000_000,
  headers: {
    'x-death': [
      { count: 1, reason: 'rejected', queue: 'orders', time: { '!': 'timestamp', value: 1_700_000_000 } },
    ],
    binary: Buffer.from([0, 1, 2, 255]),
    when: new Date('2026-01-02T03:04:05.000Z'),
    big: 2n ** 60n,
    text: 'plain',
  },
  properties: { contentType: 'application/octet-stream', deliveryMode: 2 },
  body: Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00]),
};

describe('the purge archive', () => {
  it('gives back every byte and every typed header value', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rt-archive-')), 'a.jsonl');
    await writeArchive(file, [letter, { ...letter, id: 'def456', body: Buffer.from('second') }], 5);
    const [first, second] = await readArchive(file);
    expect(first?.body.equals(letter.body)).toBe(true);
    expect(first?.headers).toEqual(letter.headers);
    expect(first?.properties).toEqual(letter.properties);
    expect(first).toMatchObject({ id: 'abc123', messageId: 'm-1', reason: 'broker-rejected', archivedAt: 5 });
    expect(second?.body.toString()).toBe('second');
    expect(readFileSync(file, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('never overwrites a file that is there', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rt-archive-')), 'a.jsonl');
    await writeArchive(file, [letter], 1);
    await expect(writeArchive(file, [], 2)).rejects.toMatchObject({ code: 'archive-exists' });
    expect(await readArchive(file)).toHaveLength(1);
  });

  it('says which line of a file is not an archive line', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'rt-archive-')), 'a.jsonl');
    await writeArchive(file, [letter], 1);
    const { appendFileSync } = await import('node:fs');
    appendFileSync(file, '{"hello":1}\n');
    await expect(readArchive(file)).rejects.toMatchObject({
      code: 'archive-invalid',
      message: expect.stringContaining(':2 '),
    });
  });
});
