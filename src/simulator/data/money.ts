/**
 * Money in integer cents. Amounts are computed in cents and turned into the source's forms only
 * at the edge: decimal strings with two places (`"1470.00"`, `"-12.50"`) or, for AR amounts,
 * JSON numbers (`1470`, `-12.5`), which are the nearest doubles to the exact decimals.
 */

const ZERO = '0.00';

/** Cents as the source's decimal string with two places. */
export function centsToString(cents: number): string {
  if (cents === 0) return ZERO;
  if (!Number.isSafeInteger(cents)) throw new Error(`cents must be a safe integer, got ${cents}`);
  const abs = Math.abs(cents);
  const frac = abs % 100;
  return `${cents < 0 ? '-' : ''}${Math.floor(abs / 100)}.${frac < 10 ? '0' : ''}${frac}`;
}

/** Cents as the JSON number an AR amount is sent as. */
export function centsToNumber(cents: number): number {
  return cents / 100;
}

/** A JSON-number amount back to exact cents. */
export function numberToCents(amount: number): number {
  return Math.round(amount * 100);
}

/** A decimal money string (optionally `$`-prefixed, as r1 invoices send it) to exact cents. */
export function stringToCents(text: string): number {
  const m = /^(-)?\$?(-)?(\d+)(?:\.(\d{1,2}))?$/.exec(text.trim());
  if (!m) throw new Error(`not a money amount: ${JSON.stringify(text)}`);
  const negative = Boolean(m[1] || m[2]);
  const cents = Number(m[3]) * 100 + Number((m[4] ?? '0').padEnd(2, '0'));
  return negative ? -cents : cents;
}

/** Rounds cents to whole dollars multiple of `step` dollars (rents are quoted in round figures). */
export function roundToDollars(cents: number, step: number): number {
  const unit = step * 100;
  return Math.round(cents / unit) * unit;
}
