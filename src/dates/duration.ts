/**
 * Durations as the configuration writes them: `26h`, `90m`, `2d`, `1d12h`. Hand-written rather
 * than `ms`: that one reads a bare number as milliseconds and takes words ("2 days"), and a
 * threshold written `26` meaning hours must be refused, not read as 26 ms.
 */
const UNIT_MS = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1_000 } as const;
const DURATION = /^(?:\d+(?:\.\d+)?[dhms])+$/;

/** Milliseconds of a duration such as `26h` or `1d12h`, or null when it is not one. */
export function parseDuration(text: string): number | null {
  const compact = text.trim().toLowerCase();
  if (!DURATION.test(compact)) return null;
  let total = 0;
  for (const [, amount, unit] of compact.matchAll(/(\d+(?:\.\d+)?)([dhms])/g))
    total += Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS];
  return Math.round(total);
}

/** A span in the configuration's words, largest units first: `26h`, `1d2h`, `45m`, `30s`. */
export function formatSpan(ms: number): string {
  let left = Math.max(Math.round(ms / 1000), 0) * 1000;
  if (left === 0) return '0s';
  const parts: string[] = [];
  for (const [unit, size] of Object.entries(UNIT_MS)) {
    const count = Math.floor(left / size);
    if (count > 0) parts.push(`${count}${unit}`);
    left -= count * size;
  }
  return parts.join('');
}
