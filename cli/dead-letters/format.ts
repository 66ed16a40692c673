import type { DeadLetter, DeadLetterSummary, PurgeReport, ReplayReport } from '../../runtime/dead-letters';
import { asText } from '../../runtime/dead-letters';
import { code, markdownTable } from '../format/markdown';
import { textTable } from '../format/table';
import { previewBody, safeText } from './safe-text';

/** What the dead-letter commands print. Every value from a message goes through safeText. */

function when(at: number | undefined, now: number): string {
  if (at === undefined) return 'unknown';
  return `${new Date(at).toISOString()} (${age(now - at)} ago)`;
}

function age(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1_000));
  if (seconds < 90) return `${seconds}s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)}m`;
  if (seconds < 36 * 3_600) return `${Math.round(seconds / 3_600)}h`;
  return `${Math.round(seconds / 86_400)}d`;
}

function summaryRows(summary: DeadLetterSummary): string[][] {
  const rows: string[][] = [];
  const add = (group: string, entries: Array<{ name: string; count: number }>) => {
    entries.forEach((entry, index) => {
      rows.push([index === 0 ? group : '', safeText(entry.name), String(entry.count)]);
    });
  };
  add(
    'reason',
    Object.entries(summary.byReason)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => ({ name, count })),
  );
  add('broker reason', summary.byBrokerReason);
  add('error', summary.byErrorName);
  add('source', summary.bySource);
  add('age', summary.byAge);
  return rows;
}

export function listText(summary: DeadLetterSummary, title: string, now: number): string {
  const lines = [title, `  in ${summary.locations.map(safeText).join(' and ')}`];
  const filtered = summary.selected !== summary.total ? `, ${summary.selected} selected by the filter` : '';
  lines.push(`  ${summary.total} pending${filtered}`);
  if (summary.handled)
    lines.push(
      `  already done: ${summary.handled.replayed} replayed, ${summary.handled.purged} purged (${summary.handled.records} of those records still in the topic)`,
    );
  if (summary.selected > 0) {
    lines.push('', ...textTable(summaryRows(summary)));
    lines.push('');
    if (summary.oldest)
      lines.push(`  oldest  ${when(summary.oldest.deadLetteredAt, now)}  id ${safeText(summary.oldest.id)}`);
    if (summary.newest)
      lines.push(`  newest  ${when(summary.newest.deadLetteredAt, now)}  id ${safeText(summary.newest.id)}`);
  }
  return `${lines.join('\n')}\n`;
}

export function listMarkdown(summary: DeadLetterSummary, title: string, now: number): string {
  const lines = [
    `### ${safeText(title)}`,
    '',
    `${summary.total} pending in ${summary.locations.map((location) => code(location)).join(' and ')}`,
  ];
  if (summary.selected !== summary.total) lines.push('', `${summary.selected} selected by the filter`);
  if (summary.handled)
    lines.push('', `Already done: ${summary.handled.replayed} replayed, ${summary.handled.purged} purged`);
  if (summary.selected > 0) {
    lines.push(
      '',
      ...markdownTable(
        ['by', 'value', 'count'],
        summaryRows(summary).map(([group, name, count]) => [group ?? '', code(name ?? ''), count ?? '']),
      ),
    );
    if (summary.oldest) lines.push('', `Oldest: ${when(summary.oldest.deadLetteredAt, now)}`);
    if (summary.newest) lines.push('', `Newest: ${when(summary.newest.deadLetteredAt, now)}`);
  }
  return `${lines.join('\n')}\n`;
}

function headerValue(value: unknown): string {
  const text = asText(value);
  if (text !== undefined) return text;
  if (value instanceof Date) return value.toISOString();
  try {
    return (
      JSON.stringify(value, (_, each) => (typeof each === 'bigint' ? each.toString() : each)) ?? String(value)
    );
  } catch {
    return String(value);
  }
}

export function showText(letters: DeadLetter[], previewBytes: number, now: number): string {
  if (letters.length === 0) return 'no dead letters match\n';
  const out: string[] = [];
  letters.forEach((letter, index) => {
    out.push(`── ${index + 1} of ${letters.length} ── id ${safeText(letter.id)}`);
    const facts: string[][] = [
      ['message id', safeText(letter.messageId ?? '(none)')],
      ['reason', letter.reason + (letter.brokerReason ? ` (${safeText(letter.brokerReason)})` : '')],
      [
        'error',
        letter.errorName ? `${safeText(letter.errorName)}: ${safeText(letter.errorMessage ?? '')}` : '(none)',
      ],
      ['attempt', letter.attempt === undefined ? 'unknown' : String(letter.attempt)],
      ['source', safeText(letter.source ?? 'unknown')],
      ['dead-lettered', when(letter.deadLetteredAt, now)],
      ['first failure', when(letter.firstFailureAt, now)],
      ['replays', String(letter.replays)],
      ['in', safeText(letter.location)],
    ];
    if (letter.attemptInvalid !== undefined) facts.push(['bad attempt', safeText(letter.attemptInvalid)]);
    out.push(...textTable(facts));
    const headers = Object.entries(letter.headers);
    if (headers.length) {
      out.push('  headers');
      out.push(
        ...textTable(
          headers.map(([name, value]) => [safeText(name), safeText(headerValue(value))]),
          '    ',
        ),
      );
    }
    const properties = Object.entries(letter.properties).filter(
      ([, value]) => value !== undefined && value !== null,
    );
    if (properties.length) {
      out.push('  properties');
      out.push(
        ...textTable(
          properties.map(([name, value]) => [safeText(name), safeText(headerValue(value))]),
          '    ',
        ),
      );
    }
    const body = previewBody(letter.body, previewBytes);
    const shown = body.truncated ? `, first ${previewBytes} shown` : '';
    out.push(`  body (${body.bytes} bytes, ${body.kind}${shown})`);
    out.push(...body.lines.map((line) => `    ${line}`));
    out.push('');
  });
  return `${out.join('\n')}`;
}

/** A dead letter as JSON: the body as base64 plus a safe text preview, headers as text. */
export function letterJson(letter: DeadLetter, previewBytes: number) {
  const body = previewBody(letter.body, previewBytes);
  return {
    ...letter,
    headers: Object.fromEntries(
      Object.entries(letter.headers).map(([name, value]) => [name, headerValue(value)]),
    ),
    properties: Object.fromEntries(
      Object.entries(letter.properties).map(([name, value]) => [
        name,
        value === null ? null : headerValue(value),
      ]),
    ),
    body: letter.body.toString('base64'),
    bodyPreview: {
      kind: body.kind,
      bytes: body.bytes,
      text: body.lines.join('\n'),
      truncated: body.truncated,
    },
  };
}

function reasons(byReason: Record<string, number>): string {
  return (
    Object.entries(byReason)
      .filter(([, count]) => count > 0)
      .map(([name, count]) => `${name} ${count}`)
      .join(', ') || 'none'
  );
}

function seconds(ms: number): string {
  return `${(ms / 1_000).toFixed(1)} s`;
}

export function replayText(report: ReplayReport): string {
  const lines: string[] = [];
  const where = `${report.locations.map(safeText).join(' and ')} → ${safeText(report.destination)}`;
  if (report.dryRun) {
    const duration = report.selected / report.ratePerSecond;
    lines.push(
      `dry run: would replay ${report.selected} of ${report.total} dead letters (${reasons(report.byReason)})`,
    );
    lines.push(`  ${where}, at ${report.ratePerSecond}/s with jitter: about ${seconds(duration * 1_000)}`);
    lines.push(`  attempts ${report.keepAttempts ? 'kept as they were' : 'start again at 1'}`);
    if (report.sample.length) lines.push(`  first ids: ${report.sample.map(safeText).join(', ')}`);
    lines.push('nothing was changed; add --yes to replay');
    return `${lines.join('\n')}\n`;
  }
  const achieved = report.elapsedMs > 0 ? (report.replayed * 1_000) / report.elapsedMs : 0;
  lines.push(`replayed ${report.replayed} of ${report.selected} selected (${reasons(report.byReason)})`);
  lines.push(
    `  ${where}, in ${seconds(report.elapsedMs)} (${achieved.toFixed(1)}/s, asked ${report.ratePerSecond}/s)`,
  );
  if (report.notFound > 0)
    lines.push(`  ${report.notFound} selected were gone before the replay reached them`);
  if (report.stopped)
    lines.push(
      `  stopped: the other ${report.selected - report.replayed} are still dead-lettered; run it again to go on`,
    );
  return `${lines.join('\n')}\n`;
}

export function purgeText(report: PurgeReport): string {
  const lines: string[] = [];
  const where = report.locations.map(safeText).join(' and ');
  if (report.dryRun) {
    lines.push(
      `dry run: would delete ${report.selected} of ${report.total} dead letters in ${where} (${reasons(report.byReason)})`,
    );
    if (report.sample.length) lines.push(`  first ids: ${report.sample.map(safeText).join(', ')}`);
    lines.push(`nothing was changed; to delete them: --yes --expect ${report.selected}`);
    return `${lines.join('\n')}\n`;
  }
  lines.push(
    `purged ${report.purged} of ${report.selected} selected in ${where} (${reasons(report.byReason)})`,
  );
  if (report.archive)
    lines.push(`  archived first to ${safeText(report.archive.path)} (${report.archive.messages} messages)`);
  if (report.notFound > 0)
    lines.push(`  ${report.notFound} selected were gone before the purge reached them`);
  if (report.stopped)
    lines.push(`  stopped: the other ${report.selected - report.purged} are still dead-lettered`);
  return `${lines.join('\n')}\n`;
}
