import { type ChildProcess, spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../policy/random';
import { HEADERS } from '../../../runtime';
import type { ConsumedMessage } from '../../../runtime/kafka';
import { Harness, header, kafkaPlan, uniqueName } from './support';

/**
 * Chaos, with park-key and without key order: three or four processes share the groups while
 * records arrive; every few seconds one is SIGKILLed (and replaced, or not), stopped gracefully,
 * or a new one joins, so
 * partitions of the source and of every retry topic move between processes mid-wait. Then the
 * run must show:
 *
 * - nothing lost, nothing misrouted: every record ends in success or in the dead-letter topic,
 *   exactly as its handler outcome says (with the reason it says);
 * - with park-key, per-key order as docs/kafka.md promises it: a record is first handled only once no older
 *   record of its key is still in the retry chain, i.e. its first handler call comes after the
 *   older record's final attempt (a success, or the failure that dead-lettered it);
 * - the application's headers (x-request-id, traceparent) on every handler call and every
 *   dead letter, as the producer sent them;
 * - duplicates only as at-least-once allows after a process died mid-record: counted and
 *   printed, and far fewer than the run itself.
 */

let harness: Harness | undefined;
const workers = new Set<ChildProcess>();
let dir: string | undefined;
afterEach(async () => {
  for (const worker of workers) worker.kill('SIGKILL');
  workers.clear();
  await harness?.close();
  harness = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

const KEYS = 16;
const RECORDS = 240;
const MAX_ATTEMPTS = 4;

type Outcome = number | 'permanent';

/** Record i: a few fail once or twice, some every time (exhausted), some permanently. */
function outcomeOf(i: number): Outcome {
  if (i % 19 === 11) return 'permanent';
  if (i % 17 === 5) return MAX_ATTEMPTS;
  if (i % 5 === 3) return 1 + (i % 2);
  return 0;
}

const expectedDead = (outcome: Outcome) => outcome === 'permanent' || outcome >= MAX_ATTEMPTS;

/** Record i's application headers. */
function headersOf(i: number): Record<string, string> {
  const trace = i.toString(16).padStart(32, '0');
  return { 'x-request-id': `req-${i}`, traceparent: `00-${trace}-00f067aa0ba902b7-01` };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Line {
  ev: 'call' | 'ok' | 'fail' | 'runtime-failed' | 'parked' | 'story' | 'read' | 'commit' | 'event';
  /** On read and commit lines: the source partition, offset and commit metadata. */
  p?: number;
  o?: string;
  m?: string;
  /** On story lines: what the test did to a process; on event lines: the group join or rebalance. */
  what?: string;
  v?: string;
  a?: number;
  /** On calls: the record's x-request-id and traceparent headers as the handler got them. */
  h?: string;
  permanent?: boolean;
  code?: string;
  pid: number;
}

function startWorker(env: Record<string, string>): Promise<ChildProcess> {
  const worker = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'chaos-worker.ts')], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  workers.add(worker);
  worker.once('exit', () => workers.delete(worker));
  return new Promise((resolve, reject) => {
    worker.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('running')) resolve(worker);
    });
    worker.once('exit', (code, signal) =>
      reject(new Error(`a worker exited (${code ?? signal}) before it ran`)),
    );
  });
}

/** Waits for `check` as long as `progress()` keeps changing; gives up after `stallMs` without a change. */
async function waitWhileProgressing(
  check: () => boolean,
  progress: () => number,
  stallMs: number,
  what: string,
): Promise<void> {
  let last = progress();
  let lastChange = Date.now();
  while (!check()) {
    const now = progress();
    if (now !== last) {
      last = now;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > stallMs) {
      throw new Error(`nothing happened for ${stallMs} ms while waiting for ${what}`);
    }
    await sleep(200);
  }
}

function exited(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => worker.once('exit', () => resolve()));
}

describe.each([
  // Per-key order: one consumer per process owns whole chains (run(kafka)).
  { name: 'park-key, one consumer per chain', ordering: 'per-key', chain: true },
  // No key order, wired by hand: the same outcomes, headers and duplicates, with records of a key
  // free to overtake each other.
  { name: 'no key order', ordering: 'none', chain: false },
] as const)('under chaos: $name', ({ ordering, chain }) => {
  it('ends every record as its handler says, keeps its order promise, duplicates only after kills', async () => {
    // Seeded, so a failing schedule can be run again with CHAOS_SEED.
    const seed = Number(process.env.CHAOS_SEED) || Math.floor(Math.random() * 2 ** 31);
    const rand = mulberry32(seed);
    const plan = kafkaPlan(uniqueName('chaos'), {
      ordering,
      maxAttempts: MAX_ATTEMPTS,
      backoff: { type: 'list', delays: ['200ms', '500ms', '1s'] },
    });
    harness = await new Harness(plan).open();
    const target = harness.target;
    dir = mkdtempSync(join(tmpdir(), 'retry-topology-chaos-'));
    const log = join(dir, 'calls.jsonl');
    const outcomes: Record<string, Outcome> = {};
    for (let i = 0; i < RECORDS; i++) if (outcomeOf(i)) outcomes[`r${i}`] = outcomeOf(i);
    const env: Record<string, string> = {
      WORKER_PLAN: JSON.stringify(plan),
      WORKER_OUTCOMES: JSON.stringify(outcomes),
      WORKER_LOG: log,
      ...(chain ? { WORKER_CHAIN: '1' } : {}),
    };
    const lines = (): Line[] => {
      try {
        return readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line) as Line);
      } catch {
        return [];
      }
    };
    // The dead-letter topic, read as it fills.
    const dead: ConsumedMessage[] = [];
    const reader = await harness.consumer(`${target.deadLetterTopic}.chaos-reader`);
    await reader.subscribe({ topics: [target.deadLetterTopic], fromBeginning: true });
    await reader.run({ eachMessage: async ({ message }) => void dead.push(message) });

    const done = () => {
      const ok = new Set(lines().flatMap((line) => (line.ev === 'ok' ? [line.v] : [])));
      const deadValues = new Set(dead.map((message) => String(message.value)));
      for (let i = 0; i < RECORDS; i++) {
        const v = `r${i}`;
        if (!(expectedDead(outcomeOf(i)) ? deadValues : ok).has(v)) return false;
      }
      return true;
    };

    const story: string[] = [];
    // Also in the log, between the handler calls, to read a duplicate against the kills.
    const tell = (what: string) => {
      story.push(what);
      appendFileSync(log, `${JSON.stringify({ ev: 'story', what, pid: process.pid })}\n`);
    };
    const starting: Array<Promise<unknown>> = [];
    const live = () => [...workers].filter((w) => w.exitCode === null && w.signalCode === null);
    const pick = () => {
      const all = live();
      return all[Math.floor(rand() * all.length)];
    };
    const killed = new Set<number>();
    const kill = async () => {
      const victim = pick();
      if (!victim) return;
      if (victim.pid) killed.add(victim.pid);
      victim.kill('SIGKILL');
      await exited(victim);
      tell(`kill ${victim.pid}`);
    };
    // Started in the background: a process may be killed while it is still joining.
    const add = () => {
      const started = startWorker(env).then(
        (worker) => tell(`start ${worker.pid}`),
        () => tell('a start killed'),
      );
      starting.push(started);
      return started;
    };
    const stopGracefully = async () => {
      const victim = pick();
      if (!victim) return;
      victim.kill('SIGTERM');
      await exited(victim);
      tell(`stop ${victim.pid}`);
    };

    await Promise.all([add(), add(), add()]);
    const sending = (async () => {
      for (let i = 0; i < RECORDS; i += 4) {
        await harness?.send(
          Array.from({ length: 4 }, (_, n) => i + n).map((j) => ({
            key: `key-${j % KEYS}`,
            value: `r${j}`,
            partition: (j % KEYS) % 3,
            headers: headersOf(j),
          })),
        );
        await sleep(250);
      }
    })();
    // Chaos for 25 s: the first two actions are kills, then whatever the dice say.
    const chaosUntil = Date.now() + 25_000;
    let round = 0;
    while (Date.now() < chaosUntil) {
      await sleep(1_500 + rand() * 2_000);
      const roll = round++ < 2 ? 0 : rand();
      if (roll < 0.5 && live().length > 1) {
        await kill();
        if (live().length < 3 || rand() < 0.6) void add();
      } else if (roll < 0.65 && live().length > 1) {
        await stopGracefully();
        void add();
      } else if (live().length < 4) void add();
      else await kill();
    }
    await sending;
    await Promise.all(starting);
    while (live().length < 2) await add();
    // However loaded the machine: it fails only when nothing happens for 45 s, not for slowness.
    const progress = () => lines().length + dead.length;
    await waitWhileProgressing(
      done,
      progress,
      45_000,
      'every record in success or the dead-letter topic',
    ).catch((error) => {
      console.log(`chaos seed ${seed}: ${story.join(', ')}`);
      throw error;
    });

    const all = lines();
    const firstCall = new Map<string, number>();
    const terminal = new Map<string, number>();
    const calls = new Map<string, number>();
    const oks = new Map<string, number>();
    all.forEach((line, at) => {
      if (!line.v) return;
      if (line.ev === 'call') {
        if (!firstCall.has(line.v)) firstCall.set(line.v, at);
        const call = `${line.v}#${line.a}`;
        calls.set(call, (calls.get(call) ?? 0) + 1);
      }
      const final =
        line.ev === 'ok' || (line.ev === 'fail' && (line.permanent || (line.a ?? 0) >= MAX_ATTEMPTS));
      if (final && !terminal.has(line.v)) terminal.set(line.v, at);
      if (line.ev === 'ok') oks.set(line.v, (oks.get(line.v) ?? 0) + 1);
    });

    // Outcomes: exactly what the handler says, with the reason it says.
    const deadByValue = new Map<string, ConsumedMessage[]>();
    for (const message of dead) {
      const v = String(message.value);
      deadByValue.set(v, [...(deadByValue.get(v) ?? []), message]);
    }
    const wrong: string[] = [];
    for (let i = 0; i < RECORDS; i++) {
      const v = `r${i}`;
      const outcome = outcomeOf(i);
      if (outcome !== 'permanent' && outcome < MAX_ATTEMPTS) {
        if (deadByValue.has(v))
          wrong.push(`${v} dead-lettered, its handler succeeds at attempt ${outcome + 1}`);
        continue;
      }
      const reason = outcome === 'permanent' ? 'permanent' : 'exhausted';
      const attempt = outcome === 'permanent' ? '1' : String(MAX_ATTEMPTS);
      for (const message of deadByValue.get(v) ?? []) {
        const got = `${header(message, HEADERS.reason)}@${header(message, HEADERS.attempt)}`;
        if (got !== `${reason}@${attempt}`)
          wrong.push(`${v} dead-lettered as ${got}, not ${reason}@${attempt}`);
      }
    }
    // Headers: on every call and every dead letter, as sent.
    const expectedHeaders = (v: string) => {
      const sent = headersOf(Number(v.slice(1)));
      return `${sent['x-request-id']} ${sent.traceparent}`;
    };
    for (const line of all)
      if (line.ev === 'call' && line.v && line.h !== expectedHeaders(line.v))
        wrong.push(`${line.v}#${line.a} reached the handler with headers "${line.h}"`);
    for (const message of dead) {
      const v = String(message.value);
      const got = `${header(message, 'x-request-id')} ${header(message, 'traceparent')}`;
      if (got !== expectedHeaders(v)) wrong.push(`${v} dead-lettered with headers "${got}"`);
    }
    expect(wrong).toEqual([]);

    // Per-key order: each record's first call after the final attempt of the one before it.
    const overtaken: string[] = [];
    for (let key = 0; key < (ordering === 'per-key' ? KEYS : 0); key++) {
      for (let i = key + KEYS; i < RECORDS; i += KEYS) {
        const before = `r${i - KEYS}`;
        const after = `r${i}`;
        if ((firstCall.get(after) ?? -1) < (terminal.get(before) ?? Number.POSITIVE_INFINITY))
          overtaken.push(
            `${after} (line ${firstCall.get(after)}) before ${before} ended (line ${terminal.get(before)})`,
          );
      }
    }

    // Duplicates against the key's next record, printed: a call of a record after the next one
    // first ran (a replay from the commit after a kill runs both again, in order), and a record
    // whose last call came after the next record's last call (what the application ends with
    // would be out of order).
    const lastCall = new Map<string, number>();
    all.forEach((line, at) => {
      if (line.ev === 'call' && line.v) lastCall.set(line.v, at);
    });
    let replayed = 0;
    let lastOutOfOrder = 0;
    for (let i = 0; i + KEYS < RECORDS; i++) {
      const last = lastCall.get(`r${i}`) ?? -1;
      if (last > (firstCall.get(`r${i + KEYS}`) ?? Number.POSITIVE_INFINITY)) replayed++;
      // Without key order, records of a key overtake each other by design: nothing to tell.
      if (ordering === 'per-key' && last > (lastCall.get(`r${i + KEYS}`) ?? Number.POSITIVE_INFINITY)) {
        lastOutOfOrder++;
        // What each process did with the two records, by log line: the story of that duplicate.
        const pair = new Set([`r${i}`, `r${i + KEYS}`]);
        const partition = (i % KEYS) % 3;
        const story = all.flatMap((line, at) => {
          if (line.ev === 'read' || line.ev === 'commit') {
            if (line.p !== partition) return [];
            return [
              `${at} ${line.pid} ${line.ev} ${line.o}${line.v ? ` ${line.v}` : ''}${line.m ? ` ${line.m}` : ''}`,
            ];
          }
          if (line.v && pair.has(line.v)) return [`${at} ${line.pid} ${line.ev} ${line.v}#${line.a}`];
          if (line.ev === 'runtime-failed') return [`${at} ${line.pid} runtime-failed ${line.code}`];
          return line.ev === 'story' ? [`${at} ${line.what}`] : [];
        });
        console.log(`r${i} last ran after r${i + KEYS}:\n${story.join('\n')}`);
      }
    }
    const duplicateCalls = [...calls.values()].reduce((sum, count) => sum + count - 1, 0);
    const duplicateSuccesses = [...oks.values()].reduce((sum, count) => sum + count - 1, 0);
    const duplicateDeadLetters = dead.length - deadByValue.size;
    const recovered = new Map<string, number>();
    for (const line of all)
      if (line.ev === 'runtime-failed')
        recovered.set(line.code ?? '?', (recovered.get(line.code ?? '?') ?? 0) + 1);
    console.log(
      [
        `chaos seed ${seed}, ${story.filter((s) => s.startsWith('kill')).length} kills: ${story.join(', ')}`,
        `handler calls ${all.filter((l) => l.ev === 'call').length}, duplicate calls ${duplicateCalls},` +
          ` duplicate successes ${duplicateSuccesses}, duplicate dead letters ${duplicateDeadLetters},` +
          ` parked copies ${all.filter((l) => l.ev === 'parked').length},` +
          ` records called again after the key's next one began ${replayed}, of them last called after it ${lastOutOfOrder}`,
        `recovered errors ${JSON.stringify(Object.fromEntries(recovered))}`,
      ].join('\n'),
    );
    expect(overtaken).toEqual([]);
    // Duplicates only as at-least-once allows. A handler call made again, at the same attempt, is
    // explained when the process that made it before
    // - was killed (what it had not committed is read again by the next owner), or
    // - joined its group again, was rebalanced or reported a failed step after it (its partitions
    //   may have moved, or it reads its uncommitted part again),
    // or when the call is one more copy of something that itself ran more than once: the attempt
    // before it ran at least as often (each run sends its own copy to the next level), or an
    // earlier owner made the same call (the copies it made and did not commit are read again).
    // A graceful stop commits what it finished, so a duplicate after a stop alone is not
    // explained. How many duplicates there are depends on where each kill lands in a batch, so
    // the count is printed above, not bounded.
    const unexplained: string[] = [];
    const callers = new Map<string, Array<{ pid: number; at: number }>>();
    all.forEach((line, at) => {
      if (line.ev !== 'call' || !line.v || line.a === undefined) return;
      const call = `${line.v}#${line.a}`;
      const earlier = callers.get(call) ?? [];
      callers.set(call, [...earlier, { pid: line.pid, at }]);
      const before = earlier.at(-1);
      if (!before) return;
      if ((callers.get(`${line.v}#${line.a - 1}`)?.length ?? 0) > earlier.length) return;
      if (earlier.some((other) => other.pid !== line.pid) && before.pid === line.pid) return;
      if (killed.has(before.pid)) return;
      const movedOn = all
        .slice(before.at + 1, at)
        .some((other) => other.pid === before.pid && (other.ev === 'event' || other.ev === 'runtime-failed'));
      if (!movedOn)
        unexplained.push(
          `${call} by pid ${before.pid} (line ${before.at}), then by pid ${line.pid} (line ${at}), with no kill, join, rebalance or failure of ${before.pid} between`,
        );
    });
    const events = all.flatMap((line, at) =>
      line.ev === 'event' || line.ev === 'runtime-failed' || line.ev === 'story'
        ? [`${at} ${line.pid} ${line.ev} ${line.what ?? line.code ?? ''}`]
        : [],
    );
    expect(unexplained, `kills, stops, joins, rebalances and failures:\n${events.join('\n')}`).toEqual([]);
  }, 300_000);
});
