import { DummyDriver, Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler } from 'kysely';
import { configSchema } from '../../src/config/schema.js';
import type { Lane, PlanContext, WorkUnitPlan } from '../../src/streams/types.js';
import type { StreamName } from '../../src/streams/registry.js';

/** A plan fixture: the source's today, the properties, the cursors, and the work the plan must give. */
export interface PlanFixture {
  today: string;
  propertyIds: string[];
  full?: boolean;
  /** Stream settings over the defaults. */
  settings?: Record<string, unknown>;
  /** Cursors by `scope|cursor`. */
  cursors: Record<string, { value: string | null; state?: Record<string, unknown> }>;
  /** Per lane key: the unit keys of its fixed steps, and how many dynamic steps follow. */
  expected: Record<string, { units: string[]; dynamicSteps?: number }>;
}

/**
 * The plan context of a fixture. The warehouse is a driver that answers every query with no
 * rows: planning reads only cursors here, as on a warehouse that holds no records yet.
 */
export function planContext(stream: StreamName, fixture: PlanFixture): PlanContext {
  const db = new Kysely<any>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
  });
  const config = configSchema.parse({
    database: { url: 'postgres://plan@localhost/plan' },
    source: { url: 'https://source.invalid', username: 'u', password: 'p' },
    streams: { [stream]: fixture.settings ?? {} },
  });
  return {
    db,
    settings: config.streams[stream],
    pageSize: config.source.pageSize,
    accountId: config.accounts[0].id,
    today: fixture.today,
    propertyIds: fixture.propertyIds,
    full: fixture.full === true,
    cursor: async (scope, cursor) => {
      const found = fixture.cursors[`${scope}|${cursor}`];
      return found ? { value: found.value, state: found.state ?? {} } : undefined;
    },
  };
}

/** What a plan gives, in the fixture's terms. */
export function planned(lanes: Lane[]): PlanFixture['expected'] {
  const out: PlanFixture['expected'] = {};
  for (const lane of lanes) {
    const units = lane.steps
      .filter((step): step is WorkUnitPlan => typeof step !== 'function')
      .map((step) => step.unitKey);
    const dynamic = lane.steps.length - units.length;
    out[lane.key] = dynamic ? { units, dynamicSteps: dynamic } : { units };
  }
  return out;
}
