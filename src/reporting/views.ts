/**
 * The reporting layer as a whole: its schemas, its views (each defined in one file under
 * definitions/) and the settings the views read. The database comments (COMMENT ON) and
 * docs/reporting.md are generated from these.
 */
import { REPORTING_DEFINITIONS } from './definitions/index.js';
import type { ReportingColumn, ReportingView } from './definition.js';

export { REPORTING_PRIVATE_SCHEMA, REPORTING_SCHEMA } from './schemas.js';
export type { ReportingColumn, ReportingView } from './definition.js';

/** Every view of `reporting`, in the order the docs list them. */
export const REPORTING_VIEWS: readonly ReportingView[] = REPORTING_DEFINITIONS;

/** Objects of `reporting` other than views: the settings table and the today() function. */
export const REPORTING_SETTINGS = {
  table: 'settings',
  purpose: 'One row of settings the views read: the time zone their "today" is taken in.',
  columns: [
    { name: 'singleton', meaning: 'Always true: the table holds one row.' },
    {
      name: 'time_zone',
      meaning: 'IANA time zone of "today" (the configuration\'s timeZone, written at the end of each sync).',
    },
    {
      name: 'source_day_offset',
      meaning:
        "Days the source's today runs ahead of the server's (0 against the real source; a simulator may run ahead), " +
        'written at the end of each sync.',
    },
    { name: 'updated_at', meaning: 'When the row was last written.' },
  ] as readonly ReportingColumn[],
  todayFunction:
    'Today in the time zone of reporting.settings (plus its source_day_offset); ' +
    'set reporting.now (a timestamptz) for the session to take another moment as now.',
} as const;
