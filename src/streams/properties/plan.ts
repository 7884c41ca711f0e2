import type { CompletionAction, Lane, PlanContext, StreamSettings, TablesDb } from '../types.js';
import { GET_PROPERTIES, type properties } from './manifest.js';
import { PROPERTY_TABLES } from './tables.js';

/** What the properties plan is given: its settings (`streams.properties`). */
type PropertiesPlanContext = PlanContext<StreamSettings<typeof properties>>;

/** The one lane of a run: the whole listing in one unit (one call per page, one page in practice). */
function wholeListing(today: string, kind: string, onComplete: CompletionAction[]): Lane[] {
  const unitKey = `properties:${kind}@${today}`;
  const request = {
    method: GET_PROPERTIES,
    params: {},
    context: { stream: 'properties', workUnit: unitKey },
  };
  return [
    {
      key: 'properties',
      propertyIds: [],
      steps: [
        {
          stream: 'properties',
          kind,
          unitKey,
          propertyIds: [],
          request,
          trackSeen: onComplete.length > 0,
          onComplete,
        },
      ],
    },
  ];
}

/**
 * Every run reads the whole listing and marks deleted the properties of the warehouse that it
 * no longer lists. The run's property selection does not narrow it: the dimension holds every
 * property the credential sees, disabled ones included.
 */
export async function planProperties(context: PropertiesPlanContext): Promise<Lane[]> {
  const db: TablesDb<typeof PROPERTY_TABLES> = context.db;
  const known = await db
    .selectFrom('properties')
    .select('property_id')
    .where('account_id', '=', context.accountId)
    .where('deleted_at', 'is', null)
    .execute();
  return wholeListing(context.today, 'listing', [
    {
      type: 'mark-unseen-deleted',
      scope: { column: 'property_id', values: known.map((row) => Number(row.property_id)) },
    },
  ]);
}

/** The listing has no dates: a backfill reads it whole and only loads (the next run marks what is gone). */
export function planPropertiesBackfill(context: PropertiesPlanContext): Lane[] {
  return wholeListing(context.today, 'backfill', []);
}
