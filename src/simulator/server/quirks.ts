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

/**
 * A record's tree as it goes on the wire: bookkeeping fields (`_...`) dropped, empty lists
 * and the containers left empty by them left out, and a single-element list sent as a bare
 * object in a seeded share of containers. `path` names the record (for example `lease:123`)
 * so that the choice is the same wherever the record appears. Returns a new tree.
 */
export function applyWireQuirks(value: unknown, path: string, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, i) => applyWireQuirks(item, `${path}#${itemKey(item, i)}`, seed));
  if (value === null || typeof value !== 'object') return value;
  const source = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const key in source) {
    if (key.charCodeAt(0) === 95 /* _ */) continue;
    const child = source[key];
    if (child === undefined || child === null) continue;
    if (Array.isArray(child)) {
      if (child.length === 0) continue;
      const listPath = `${path}/${key}`;
      const items = child.map((item, i) => applyWireQuirks(item, `${listPath}#${itemKey(item, i)}`, seed));
      out[key] = items.length === 1 && sendsBare(seed, listPath) ? items[0] : items;
    } else if (typeof child === 'object') {
      const rendered = applyWireQuirks(child, `${path}/${key}`, seed) as Record<string, unknown>;
      let empty = true;
      for (const _ in rendered) {
        empty = false;
        break;
      }
      if (!empty) out[key] = rendered;
    } else {
      out[key] = child;
    }
  }
  return out;
}

/**
 * The top-level list of a result (`leases.lease`, `invoices.invoice`,
 * `PhysicalProperty.Property`): bare when it holds one record and that record's container
 * choice says so, the records otherwise.
 */
export function resultList(containerName: string, records: unknown[], recordIds: string[], seed: number): unknown {
  if (records.length === 1 && sendsBare(seed, `${containerName}:${recordIds[0]}`)) return records[0];
  return records;
}
