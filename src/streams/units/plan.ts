import { sql } from 'kysely';
import type { CompletionAction, Lane, PlanContext, StreamSettings, TablesDb } from '../types.js';
import { GET_PROPERTY_UNITS, UNIT_CALL_PARAMS, type units } from './manifest.js';
import { UNIT_TABLES } from './tables.js';

/** What the units plan is given: its settings (`streams.units`). */
type UnitsPlanContext = PlanContext<StreamSettings<typeof units>>;

/** Units assumed of a property never synced, when sizing its call. */
const UNKNOWN_UNITS = 1000;

/**
 * The run's properties in groups of at most `unitsPerCall` units (as the warehouse last held
 * them), in id order; a property larger than that is a group alone. One call lists a group whole.
 */
export function groupProperties(
  propertyIds: readonly string[],
  sizes: ReadonlyMap<string, number>,
  limit: number,
): string[][] {
  const groups: string[][] = [];
  let group: string[] = [];
  let size = 0;
  for (const id of [...propertyIds].sort((a, b) => Number(a) - Number(b))) {
    const units = sizes.get(id) ?? UNKNOWN_UNITS;
    if (group.length > 0 && size + units > limit) {
      groups.push(group);
      group = [];
      size = 0;
    }
    group.push(id);
    size += units;
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

/** Live units per property in the warehouse, for this account. */
async function unitsPerProperty(context: UnitsPlanContext): Promise<Map<string, number>> {
  const db: TablesDb<typeof UNIT_TABLES> = context.db;
  const { rows } = await sql<{ property_id: number; units: number }>`
    select property_id, count(*)::int as units from units
     where account_id = ${context.accountId} and deleted_at is null
     group by property_id`.execute(db);
  return new Map(rows.map((row) => [String(row.property_id), row.units]));
}

function lanesOf(context: UnitsPlanContext, groups: string[][], kind: string, deletes: boolean): Lane[] {
  return groups.map((propertyIds) => {
    const unitKey = `units:${kind}:${propertyIds.join(',')}@${context.today}`;
    const onComplete: CompletionAction[] = deletes
      ? [{ type: 'mark-unseen-deleted', scope: { column: 'property_id', values: propertyIds.map(Number) } }]
      : [];
    return {
      key: `units:${propertyIds[0]}`,
      propertyIds,
      steps: [
        {
          stream: 'units',
          kind,
          unitKey,
          propertyIds,
          request: {
            method: GET_PROPERTY_UNITS,
            params: { propertyIds, ...UNIT_CALL_PARAMS },
            context: {
              stream: 'units',
              workUnit: unitKey,
              ...(propertyIds.length === 1 && { property: propertyIds[0] }),
            },
          },
          trackSeen: deletes,
          onComplete,
        },
      ],
    };
  });
}

/**
 * Every run lists every unit of its properties, a call per group of properties sized under
 * `unitsPerCall` units: the source tells only today's state, with nothing to read incrementally.
 * Properties (and with them their units and spaces) that a listing no longer holds are marked
 * deleted; units and spaces a property's listing no longer holds are marked deleted with it.
 */
export async function planUnits(context: UnitsPlanContext): Promise<Lane[]> {
  const sizes = await unitsPerProperty(context);
  return lanesOf(
    context,
    groupProperties(context.propertyIds, sizes, context.settings.unitsPerCall),
    'listing',
    true,
  );
}

/** The listing has no dates: a backfill reads today's whole and only loads (the next run marks what is gone). */
export function planUnitsBackfill(context: UnitsPlanContext): Lane[] {
  return lanesOf(
    context,
    groupProperties(context.propertyIds, new Map(), context.settings.unitsPerCall),
    'backfill',
    false,
  );
}
