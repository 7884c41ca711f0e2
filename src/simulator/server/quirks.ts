import { hashUnit } from './hash.js';

/** The result the source sends instead of an object when nothing matches. */
export const NO_RECORDS = 'No records found with mentioned preferences.';

/** Share of single-element lists sent as a bare object instead of a one-element array. */
export const BARE_SINGLE_SHARE = 0.5;

/**
 * Whether the single-element list at a container path goes out as a bare object: a seeded,
 * fixed choice per container, so the same record renders the same way on every call.
 */
export function sendsBare(seed: number, containerPath: string): boolean {
  return hashUnit(seed, `bare:${containerPath}`) < BARE_SINGLE_SHARE;
}

function itemKey(item: unknown, index: number): string {
  if (item && typeof item === 'object') {
    const id = (item as Record<string, unknown>).id;
    if (typeof id === 'string' || typeof id === 'number') return String(id);
  }
  return `@${index}`;
}

function quirkItems(list: unknown[], listPath: string, seed: number): unknown[] {
  const out = new Array<unknown>(list.length);
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    out[i] =
      item !== null && typeof item === 'object'
        ? (quirkObject(item as Record<string, unknown>, `${listPath}#${itemKey(item, i)}`, seed) ?? {})
        : item;
  }
  return out;
}

/** The object with the quirks applied, or undefined when nothing is left in it. */
function quirkObject(
  source: Record<string, unknown>,
  path: string,
  seed: number,
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  let empty = true;
  for (const key in source) {
    if (key.charCodeAt(0) === 95 /* _ */) continue;
    const child = source[key];
    if (child === undefined || child === null) continue;
    if (typeof child !== 'object') {
      out[key] = child;
      empty = false;
    } else if (Array.isArray(child)) {
      if (child.length === 0) continue;
      const listPath = `${path}/${key}`;
      const items = quirkItems(child, listPath, seed);
      out[key] = items.length === 1 && sendsBare(seed, listPath) ? items[0] : items;
      empty = false;
    } else {
      const rendered = quirkObject(child as Record<string, unknown>, `${path}/${key}`, seed);
      if (rendered !== undefined) {
        out[key] = rendered;
        empty = false;
      }
    }
  }
  return empty ? undefined : out;
}

/**
 * A record's tree as it goes on the wire: bookkeeping fields (`_...`) dropped, empty lists
 * and the containers left empty by them left out, and a single-element list sent as a bare
 * object in a seeded share of containers. `path` names the record (for example `lease:123`)
 * so that the choice is the same wherever the record appears. Returns a new tree.
 */
export function applyWireQuirks(value: unknown, path: string, seed: number): unknown {
  if (Array.isArray(value)) return quirkItems(value, path, seed);
  if (value === null || typeof value !== 'object') return value;
  return quirkObject(value as Record<string, unknown>, path, seed) ?? {};
}

/**
 * The top-level list of a result (`leases.lease`, `invoices.invoice`,
 * `PhysicalProperty.Property`): bare when it holds one record and that record's container
 * choice says so, the records otherwise.
 */
export function resultList(
  containerName: string,
  records: unknown[],
  recordIds: string[],
  seed: number,
): unknown {
  if (records.length === 1 && sendsBare(seed, `${containerName}:${recordIds[0]}`)) return records[0];
  return records;
}
