/**
 * The source's unit statuses, mapped to a small set of categories. The source's string is always
 * kept (unit_spaces.availability_status); a string not listed here is category `other`, reported
 * in the run's log, never dropped or quarantined.
 */

/** The categories a status maps to. */
export const UNIT_STATUS_CATEGORIES = [
  'occupied',
  'notice',
  'vacant',
  'down',
  'model',
  'admin',
  'other',
] as const;
export type UnitStatusCategory = (typeof UNIT_STATUS_CATEGORIES)[number];

/** What a status says: its category, and whether it says pre-leased (rented) or ready. */
export interface UnitStatusMeaning {
  category: UnitStatusCategory;
  preleased: boolean | null;
  ready: boolean | null;
}

const KNOWN = new Map<string, [UnitStatusCategory, boolean | null, boolean | null]>(
  Object.entries({
    occupied: ['occupied', null, null],
    'occupied no notice': ['occupied', null, null],
    notice: ['notice', null, null],
    'on notice': ['notice', null, null],
    'notice unrented': ['notice', false, null],
    'on notice unrented': ['notice', false, null],
    'notice rented': ['notice', true, null],
    'on notice rented': ['notice', true, null],
    vacant: ['vacant', null, null],
    'vacant ready': ['vacant', null, true],
    'vacant not ready': ['vacant', null, false],
    'vacant unrented': ['vacant', false, null],
    'vacant unrented ready': ['vacant', false, true],
    'vacant unrented not ready': ['vacant', false, false],
    'vacant rented': ['vacant', true, null],
    'vacant rented ready': ['vacant', true, true],
    'vacant rented not ready': ['vacant', true, false],
    'pre leased': ['vacant', true, null],
    preleased: ['vacant', true, null],
    down: ['down', null, null],
    'unit down': ['down', null, null],
    offline: ['down', null, null],
    model: ['model', null, null],
    'model unit': ['model', null, null],
    admin: ['admin', null, null],
    administrative: ['admin', null, null],
    'employee unit': ['admin', null, null],
  } satisfies Record<string, [UnitStatusCategory, boolean | null, boolean | null]>) as [
    string,
    [UnitStatusCategory, boolean | null, boolean | null],
  ][],
);

/** A status compared without case, dashes or repeated spaces (`Notice-Rented` is `notice rented`). */
function comparable(status: string): string {
  return status
    .toLowerCase()
    .replace(/[-_/]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** What the source's status string says; `known` is false for a string not listed (category `other`). */
export function unitStatusMeaning(status: string | null): UnitStatusMeaning & { known: boolean } {
  const entry = status === null ? undefined : KNOWN.get(comparable(status));
  if (!entry) return { category: 'other', preleased: null, ready: null, known: false };
  return { category: entry[0], preleased: entry[1], ready: entry[2], known: true };
}
