/**
 * Durations in policy files carry their unit in the text: "200ms", "2s", "10m", "1h", "1d",
 * or a sum of those ("1m30s"). A bare number is refused: "2000" could mean ms or s.
 */

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
type Unit = keyof typeof UNIT_MS;

const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/y;

/** Milliseconds for a duration text, or undefined when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < trimmed.length) {
    const match = PART.exec(trimmed);
    if (!match) return undefined;
    const part = Number(match[1]) * UNIT_MS[match[2] as Unit];
    // "47.295s" is 47294.999… in floating point; anything further from whole is sub-millisecond
    // ("0.5ms"), which no broker can hold.
    const whole = Math.round(part);
    if (Math.abs(part - whole) > 1e-6) return undefined;
    total += whole;
  }
  return Number.isSafeInteger(total) ? total : undefined;
}

/** The shortest exact text for a number of milliseconds: 1500 → "1.5s", 90000 → "1m30s". */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1_000) return `${ms}ms`;
  if (ms < 60_000) return `${ms / 1_000}s`;
  const parts: string[] = [];
  let rest = ms;
  for (const unit of ['d', 'h', 'm'] as const) {
    const whole = Math.floor(rest / UNIT_MS[unit]);
    if (whole > 0) {
      parts.push(`${whole}${unit}`);
      rest -= whole * UNIT_MS[unit];
    }
  }
  if (rest > 0) parts.push(`${rest / 1_000}s`);
  return parts.join('');
}

/** ISO 8601 duration as Azure expects it ("PT1M", "P14D"). Whole seconds; Azure ignores less. */
export function toIso8601(ms: number): string {
  let seconds = Math.ceil(ms / 1_000);
  const days = Math.floor(seconds / 86_400);
  seconds -= days * 86_400;
  const hours = Math.floor(seconds / 3_600);
  seconds -= hours * 3_600;
  const minutes = Math.floor(seconds / 60);
  seconds -= minutes * 60;
  let time = '';
  if (hours) time += `${hours}H`;
  if (minutes) time += `${minutes}M`;
  if (seconds) time += `${seconds}S`;
  const date = days ? `P${days}D` : 'P';
  if (!time) return days ? date : 'PT0S';
  return `${date}T${time}`;
}
