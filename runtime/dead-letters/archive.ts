import { constants } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DeadLetterError } from './errors';
import type { DeadLetter } from './types';

/**
 * `purge --archive file.jsonl`: every message it will delete, written and flushed to disk first,
 * one JSON object per line. Bodies are base64; header values keep their type (bytes, dates and
 * 64-bit numbers are tagged), so `readArchive` gives back exactly what was in the dead letter.
 */

export const ARCHIVE_FORMAT = 'retry-topology/dead-letter/v1';

export interface ArchivedDeadLetter extends Omit<DeadLetter, 'body' | 'headers' | 'properties'> {
  format: typeof ARCHIVE_FORMAT;
  archivedAt: number;
  headers: Record<string, unknown>;
  properties: Record<string, unknown>;
  body: Buffer;
}

/** A header value as plain JSON, with bytes, dates and 64-bit numbers tagged. */
export function encodeValue(value: unknown): unknown {
  if (value instanceof Uint8Array) return { $bytes: Buffer.from(value).toString('base64') };
  if (value instanceof Date) return { $date: value.toISOString() };
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (Array.isArray(value)) return value.map(encodeValue);
  if (value !== null && typeof value === 'object') {
    // long.js values (Service Bus sequence numbers) say what they are.
    if ('low' in value && 'high' in value && 'unsigned' in value) return { $long: String(value) };
    return Object.fromEntries(Object.entries(value).map(([key, each]) => [key, encodeValue(each)]));
  }
  return value;
}

function decodeValue(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(decodeValue);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value);
  if (entries.length === 1) {
    const [key, inner] = entries[0] as [string, unknown];
    if (key === '$bytes' && typeof inner === 'string') return Buffer.from(inner, 'base64');
    if (key === '$date' && typeof inner === 'string') return new Date(inner);
    if (key === '$bigint' && typeof inner === 'string') return BigInt(inner);
    if (key === '$long' && typeof inner === 'string') return BigInt(inner);
  }
  return Object.fromEntries(entries.map(([key, each]) => [key, decodeValue(each)]));
}

export function archiveLine(letter: DeadLetter, archivedAt: number): string {
  const { body, headers, properties, ...rest } = letter;
  return JSON.stringify({
    format: ARCHIVE_FORMAT,
    archivedAt,
    ...rest,
    headers: encodeValue(headers),
    properties: encodeValue(properties),
    body: body.toString('base64'),
  });
}

/**
 * Writes every letter to a new file and makes it durable (file and directory flushed) before
 * returning. An existing file is never overwritten or appended to: it may be an earlier archive.
 */
export async function writeArchive(path: string, letters: readonly DeadLetter[], now: number): Promise<void> {
  let file: Awaited<ReturnType<typeof open>>;
  try {
    file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    if (code === 'EEXIST')
      throw new DeadLetterError('archive-exists', `${path} already exists; archives are never overwritten`);
    throw new DeadLetterError('archive-failed', `cannot create ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  try {
    const text = letters.map((letter) => `${archiveLine(letter, now)}\n`).join('');
    await file.writeFile(text, 'utf8');
    await file.sync();
  } catch (cause) {
    throw new DeadLetterError('archive-failed', `writing ${path} failed: ${(cause as Error).message}`, {
      cause,
    });
  } finally {
    await file.close().catch(() => undefined);
  }
  // The new directory entry must survive a crash too.
  const directory = await open(dirname(path), 'r').catch(() => undefined);
  await directory?.sync().catch(() => undefined);
  await directory?.close().catch(() => undefined);
}

export async function readArchive(path: string): Promise<ArchivedDeadLetter[]> {
  const text = await readFile(path, 'utf8');
  const out: ArchivedDeadLetter[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch (cause) {
      throw new DeadLetterError('archive-invalid', `${path}:${index + 1} is not JSON`, { cause });
    }
    if (parsed.format !== ARCHIVE_FORMAT || typeof parsed.body !== 'string')
      throw new DeadLetterError('archive-invalid', `${path}:${index + 1} is not a ${ARCHIVE_FORMAT} line`);
    out.push({
      ...(parsed as unknown as ArchivedDeadLetter),
      headers: decodeValue(parsed.headers ?? {}) as Record<string, unknown>,
      properties: decodeValue(parsed.properties ?? {}) as Record<string, unknown>,
      body: Buffer.from(parsed.body, 'base64'),
    });
  }
  return out;
}
