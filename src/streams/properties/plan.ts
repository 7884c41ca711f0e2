import type { CompletionAction, Lane, PlanContext } from '../types.js';
import { GET_PROPERTIES } from './method.js';

/** The one lane of a run: the whole listing in one unit (one call per page, one page in practice). */
function wholeListing(today: string, kind: string, onComplete: CompletionAction[]): Lane[] {
  const unitKey = `properties:${kind}@${today}`;
  const request = { method: GET_PROPERTIES, params: {}, context: { stream: 'properties', workUnit: unitKey } };
  return [{ key: 'properties', propertyIds: [], steps: [{ stream: 'properties', kind, unitKey, propertyIds: [], request, trackSeen: onComplete.length > 0, onComplete }] }];
}

/**
 * Every run reads the whole listing and marks deleted the properties of the warehouse that it
 * no longer lists. The run's property selection does not narrow it: the dimension holds every
 * property the credential sees, disabled ones included.
 */
export async function planProperties(context: PlanContext): Promise<Lane[]> {
  const known = await context.db.selectFrom('properties').select('property_id').where('deleted_at', 'is', null).execute();
  return wholeListing(context.today, 'listing', [{ type: 'mark-unseen-deleted', scope: { column: 'property_id', values: known.map((row) => Number(row.property_id)) } }]);
}

/** The listing has no dates: a backfill reads it whole and only loads (the next run marks what is gone). */
export function planPropertiesBackfill(context: PlanContext): Lane[] {
  return wholeListing(context.today, 'backfill', []);
}
