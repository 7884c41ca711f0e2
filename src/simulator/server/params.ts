import type { IsoDay } from '../data/model.js';
import { invalidParameter } from './errors.js';

const DIGITS = /^\d{1,15}$/;
const US_DATE = /^(\d{2})\/(\d{2})\/(\d{4})$/;

function isCalendarDay(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false;
  return day <= new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** `MM/DD/YYYY` as `YYYY-MM-DD`, or undefined when it is not a calendar date in that form. */
export function parseUsDate(text: string): IsoDay | undefined {
  const match = US_DATE.exec(text.trim());
  if (!match) return undefined;
  const [, mm, dd, yyyy] = match;
  if (!isCalendarDay(Number(yyyy), Number(mm), Number(dd))) return undefined;
  return `${yyyy}-${mm}-${dd}`;
}

/**
 * Reads the string parameters of one call with the contract's encodings (ids as digits, id
 * lists comma-separated with optional spaces, dates `MM/DD/YYYY`, booleans `"0"`/`"1"`) and
 * throws an ApiError (code 400 naming the parameter) on a malformed value. Empty values count
 * as absent. Constructing it rejects parameters the method does not know.
 */
export class ParamReader {
  constructor(
    private readonly params: Record<string, string>,
    allowed: readonly string[],
  ) {
    for (const name of Object.keys(params)) {
      if (!allowed.includes(name))
        throw invalidParameter(name, `unknown parameter; expected one of ${allowed.join(', ')}`);
    }
  }

  /** The trimmed value, undefined when absent or empty. */
  text(name: string): string | undefined {
    const value = this.params[name];
    if (value === undefined) return undefined;
    const trimmed = value.trim();
    return trimmed === '' ? undefined : trimmed;
  }

  /** One numeric id; throws when `required` and absent. */
  id(name: string, required = false): number | undefined {
    const value = this.text(name);
    if (value === undefined) {
      if (required) throw invalidParameter(name, 'required parameter is missing');
      return undefined;
    }
    if (!DIGITS.test(value)) throw invalidParameter(name, `'${value}' is not a numeric id`);
    return Number(value);
  }

  /** A comma-separated list of numeric ids (spaces after commas tolerated). */
  idList(name: string): number[] | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    return value.split(',').map((part) => {
      const id = part.trim();
      if (!DIGITS.test(id))
        throw invalidParameter(name, `'${id}' is not a numeric id (expected ids separated by commas)`);
      return Number(id);
    });
  }

  /** A date `MM/DD/YYYY`, as `YYYY-MM-DD`. */
  date(name: string): IsoDay | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const day = parseUsDate(value);
    if (!day) throw invalidParameter(name, `'${value}' is not a date in the form MM/DD/YYYY`);
    return day;
  }

  /** A boolean `"0"`/`"1"`; absent means false. */
  flag(name: string): boolean {
    const value = this.text(name);
    if (value === undefined || value === '0') return false;
    if (value === '1') return true;
    throw invalidParameter(name, `'${value}' is not a boolean; expected 0 or 1`);
  }

  /** A post month `MM/YYYY` or `MM/01/YYYY`, as the source writes it: `MM/01/YYYY`. */
  postMonth(name: string): string | undefined {
    const value = this.text(name);
    if (value === undefined) return undefined;
    const match = /^(\d{2})\/(?:01\/)?(\d{4})$/.exec(value);
    if (!match || Number(match[1]) < 1 || Number(match[1]) > 12) {
      throw invalidParameter(name, `'${value}' is not a post month; expected MM/YYYY or MM/01/YYYY`);
    }
    return `${match[1]}/01/${match[2]}`;
  }
}
