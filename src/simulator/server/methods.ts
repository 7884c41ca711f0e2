import type { DatasetIndex } from './dataset-index.js';
import { ApiError, ERROR_CODE, invalidParameter } from './errors.js';
import { damageRecord, type FaultInjector } from './faults.js';
import { parseInvoiceQuery, selectInvoices } from './invoice-query.js';
import { parseLeaseQuery, selectLeases } from './lease-query.js';
import { pageOf, type PageInfo, type PageRequest } from './paging.js';
import { ParamReader } from './params.js';
import { applyWireQuirks, NO_RECORDS, resultList } from './quirks.js';
import { renderInvoice } from './render-invoice.js';
import { renderLease } from './render-lease.js';
import { renderPropertyUnits } from './render-units.js';
import { propertyInventory } from '../data/inventory.js';
import type { ApiMethod, ApiVersion } from './routes.js';

/** What a method needs besides its parameters. */
export interface MethodContext {
  index: DatasetIndex;
  /** The data set's seed: fixes the wire quirks of every record. */
  seed: number;
  page: PageRequest;
  faults?: FaultInjector;
}

/** A method's answer: the envelope's `result` and, for paged methods, the page served. */
export interface MethodOutcome {
  result: unknown;
  page?: PageInfo;
}

/** Message of getStatus. */
export const STATUS_MESSAGE = 'The API is up and running.';

function noAccess(propertyId: number): ApiError {
  return new ApiError(ERROR_CODE.noAccess, `No access to property ${propertyId} or it does not exist`);
}

function pageRecords<T>(
  records: readonly T[],
  ctx: MethodContext,
  method: ApiMethod,
  idOf: (record: T) => string,
  render: (record: T) => Record<string, unknown>,
  pathPrefix: string,
): { items: unknown[]; ids: string[]; page: PageInfo } {
  const page = pageOf(records.length, ctx.page);
  const slice = records.slice(page.start, page.end);
  const faults = ctx.faults?.hasBadRecords(method) ? ctx.faults : undefined;
  const ids: string[] = [];
  const items = slice.map((record) => {
    const id = idOf(record);
    ids.push(id);
    const tree = render(record);
    const damage = faults?.badRecord(method, id);
    if (damage) damageRecord(method, tree, damage);
    return applyWireQuirks(tree, `${pathPrefix}:${id}`, ctx.seed);
  });
  return { items, ids, page };
}

function getLeases(params: Record<string, string>, version: ApiVersion, ctx: MethodContext): MethodOutcome {
  const query = parseLeaseQuery(params, version);
  if (!ctx.index.propertiesById.has(query.propertyId)) throw noAccess(query.propertyId);
  const matched = selectLeases(ctx.index.leasesByProperty.get(query.propertyId) ?? [], query);
  const { items, ids, page } = pageRecords(
    matched,
    ctx,
    'getLeases',
    (lease) => lease.id,
    (lease) => renderLease(lease, query),
    'lease',
  );
  if (items.length === 0) return { result: NO_RECORDS, page };
  return {
    result: { currencyCode: 'USD', leases: { lease: resultList('leases', items, ids, ctx.seed) } },
    page,
  };
}

function getInvoices(params: Record<string, string>, version: ApiVersion, ctx: MethodContext): MethodOutcome {
  const query = parseInvoiceQuery(params, version);
  for (const propertyId of query.propertyIds ?? [])
    if (!ctx.index.propertiesById.has(propertyId)) throw noAccess(propertyId);
  const matched = selectInvoices(ctx.index, query);
  const options = { version, includeVoidedPayments: query.includeVoidedPayments, seed: ctx.seed };
  const { items, ids, page } = pageRecords(
    matched,
    ctx,
    'getInvoices',
    (invoice) => invoice.id,
    (invoice) => renderInvoice(invoice, options),
    'invoice',
  );
  if (items.length === 0) return { result: NO_RECORDS, page };
  return { result: { invoices: { invoice: resultList('invoices', items, ids, ctx.seed) } }, page };
}

function getProperties(params: Record<string, string>, ctx: MethodContext): MethodOutcome {
  const p = new ParamReader(params, ['propertyIds']);
  const wanted = p.idList('propertyIds');
  const wantedSet = wanted ? new Set(wanted) : undefined;
  const properties = [...ctx.index.propertiesById.values()]
    .filter((property) => !wantedSet || wantedSet.has(property.PropertyID))
    .sort((a, b) => a.PropertyID - b.PropertyID);
  const { items, ids, page } = pageRecords(
    properties,
    ctx,
    'getProperties',
    (property) => String(property.PropertyID),
    (property) => ({ ...property }),
    'property',
  );
  if (items.length === 0) return { result: NO_RECORDS, page };
  return { result: { PhysicalProperty: { Property: resultList('Property', items, ids, ctx.seed) } }, page };
}

/** Parameters of getPropertyUnits (source-api.md section 6a). */
const UNIT_PARAMS = [
  'propertyIds',
  'availableUnitsOnly',
  'usePropertyPreferences',
  'includeDisabledFloorplans',
  'includeDisabledUnits',
];

/**
 * getPropertyUnits: every unit and space of the properties asked for on the data set's today, a
 * record per property. Units that are down are disabled: left out unless `includeDisabledUnits`
 * (a default that hides data, as the others have). `availableUnitsOnly` keeps the spaces that are
 * vacant or on notice and not pre-leased.
 */
function getPropertyUnits(params: Record<string, string>, ctx: MethodContext): MethodOutcome {
  const p = new ParamReader(params, UNIT_PARAMS);
  const wanted = p.idList('propertyIds');
  if (!wanted) throw invalidParameter('propertyIds', 'required parameter is missing');
  const availableOnly = p.flag('availableUnitsOnly');
  const disabled = p.flag('includeDisabledUnits');
  for (const flag of ['usePropertyPreferences', 'includeDisabledFloorplans']) p.flag(flag);
  const properties = [...new Set(wanted)]
    .sort((a, b) => a - b)
    .map((id) => {
      const property = ctx.index.propertiesById.get(id);
      if (!property) throw noAccess(id);
      return property;
    });
  const { items, ids, page } = pageRecords(
    properties,
    ctx,
    'getPropertyUnits',
    (property) => String(property.PropertyID),
    (property) => {
      const units = propertyInventory(ctx.index.dataset, ctx.index.inventory, property)
        .filter((unit) => disabled || unit.spaces.every((space) => space.state !== 'down'))
        .map((unit) =>
          availableOnly
            ? {
                ...unit,
                spaces: unit.spaces.filter(
                  (space) => (space.state === 'vacant' || space.state === 'notice') && !space.preleased,
                ),
              }
            : unit,
        )
        .filter((unit) => unit.spaces.length > 0);
      return renderPropertyUnits(property, units, ctx.seed);
    },
    'property-units',
  );
  if (items.length === 0) return { result: NO_RECORDS, page };
  return { result: { properties: { property: resultList('property', items, ids, ctx.seed) } }, page };
}

/**
 * Runs one read method against the data set: decodes and checks its parameters (an ApiError
 * with code 400 or 302 otherwise), filters, pages, renders the version's shape with the wire
 * quirks and any bad-record faults.
 */
export function runMethod(
  method: ApiMethod,
  version: ApiVersion,
  params: Record<string, string>,
  ctx: MethodContext,
): MethodOutcome {
  switch (method) {
    case 'getLeases':
      return getLeases(params, version, ctx);
    case 'getInvoices':
      return getInvoices(params, version, ctx);
    case 'getProperties':
      return getProperties(params, ctx);
    case 'getPropertyUnits':
      return getPropertyUnits(params, ctx);
    case 'getStatus':
      new ParamReader(params, []);
      return { result: { status: 'Success', message: STATUS_MESSAGE } };
  }
}
