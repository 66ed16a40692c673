/** "100/s", "6000/m", "250/h" → messages per second; undefined when it is not a rate. */
const PER = { s: 1, m: 60, h: 3_600 } as const;

export function parseRate(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(s|m|h)\s*$/.exec(text);
  if (!match) return undefined;
  const perSecond = Number(match[1]) / PER[match[2] as keyof typeof PER];
  return perSecond > 0 && Number.isFinite(perSecond) ? perSecond : undefined;
}
