import {
  bigint,
  boolean,
  date,
  defineSourceTable,
  defineTable,
  integer,
  money,
  numeric,
  text,
  timestamptz,
  type RowsOf,
} from '../../warehouse/schema.js';
import { UNIT_STATUS_CATEGORIES } from './statuses.js';

/** The tables of the units stream: `unit_inventories` first, then its units and spaces. */

export const UNIT_INVENTORIES = defineSourceTable({
  name: 'unit_inventories',
  meaning:
    "One row per property getPropertyUnits lists: the header of the property's unit inventory as last read.",
  key: ['property_id'],
  sourceHash: true,
  columns: {
    property_id: bigint('The property.').notNull(),
    unit_count: integer('Units the source listed for the property.'),
    space_count: integer('Unit spaces the source listed for the property.'),
  },
});

export const UNITS = defineSourceTable({
  name: 'units',
  meaning:
    'One row per unit the source lists (homes, and parking or storage spaces rented as other ' +
    'income); a unit it stops listing keeps its row with deleted_at set.',
  key: ['unit_id'],
  parentColumn: 'property_id',
  rowHash: true,
  indexes: [['property_id']],
  columns: {
    unit_id: bigint("The unit's id.").notNull(),
    property_id: bigint('Its property.').notNull(),
    unit_number: text("The unit's number."),
    building_id: bigint('Its building: the id.'),
    building_name: text('Its building: the name.'),
    floorplan_id: bigint('Its floor plan: the id.'),
    floorplan_name: text('Its floor plan: the name.'),
    unit_type_id: bigint('Unit type: the id.'),
    unit_type_name: text('Unit type, as the source names it (Apartment, Townhome, Parking ...).'),
    bedrooms: integer('Bedrooms (noOfBedrooms).'),
    bathrooms: numeric('Bathrooms (noOfBathrooms), halves included.'),
    square_feet: integer('Area in square feet.'),
    is_furnished: boolean('The unit is furnished.'),
    is_corporate_rented: boolean(
      'The unit is rented to a company (isCorportateRented, as the source spells it).',
    ),
    number_occupants: integer('Most occupants allowed.'),
    max_pets: integer('Most pets allowed.'),
    unit_availability_url: text("The unit's page on the property's website."),
    unit_address: text("The unit's street address."),
    is_other_income: boolean(
      'A space rented as other income (parking, storage, garage, carport, by its unit type), not a home.',
    ).notNull(),
  },
});

export const UNIT_SPACES = defineSourceTable({
  name: 'unit_spaces',
  meaning:
    'One row per unit space (what a lease holds: the unit itself, or a bed of a by-the-bed ' +
    "unit) with today's availability and market rent.",
  key: ['unit_space_id'],
  parentColumn: 'property_id',
  rowHash: true,
  indexes: [['property_id'], ['unit_id']],
  columns: {
    unit_space_id: bigint("The space's id.").notNull(),
    property_id: bigint('Its property.').notNull(),
    unit_id: bigint('Its unit.').notNull(),
    unit_number: text("The space's number (the unit's, or the unit's with a letter)."),
    availability_status: text(
      'Status as the source names it (Occupied No Notice, Notice Unrented, Vacant ...).',
    ),
    status_category: text(
      `The status's category: ${UNIT_STATUS_CATEGORIES.join(', ')} (a status propsync does not know: other).`,
    ).notNull(),
    is_preleased: boolean(
      'A future lease holds the space, as the status says (null: the status does not say).',
    ),
    is_ready: boolean(
      'Made ready for a move-in, as the status says (null: it does not say; see make_ready_date).',
    ),
    available_date: date('When the space is available for a move-in.'),
    make_ready_date: date('When the make-ready after the last move-out is done.'),
    rent: money('Market rent: what the space is offered at today.'),
    min_deposit: money('Lowest deposit asked.'),
    max_deposit: money('Highest deposit asked.'),
    reserve_until: date('The space is reserved until this day.'),
    is_affordable: boolean('An affordable-housing space.'),
    has_pricing: boolean('The space has pricing set.'),
    excluded_reason: text('Why the space is excluded from availability, if it is.'),
    space_configuration: text('Space configuration, as the source names it (Conventional ...).'),
    is_other_income: boolean("The unit's is_other_income: parking or storage, not a home.").notNull(),
  },
});

/**
 * Each space's status and rent over time, kept by the warehouse itself (the source gives only
 * today): a trigger on unit_spaces (migrations/0021) closes a space's open row and opens another
 * whenever a run writes another status or rent, or marks the space deleted.
 */
export const UNIT_SPACE_STATUS_HISTORY = defineTable({
  name: 'unit_space_status_history',
  meaning:
    "A unit space's status and rent from the day a run first saw them to the day one saw them " +
    'change (open while current): the history the source does not keep.',
  key: ['history_id'],
  indexes: [['unit_space_id', 'valid_from'], ['property_id', 'valid_from'], ['unit_space_id']],
  columns: {
    history_id: bigint("The row's id.").notNull().defaulted(),
    property_id: bigint('The property.').notNull(),
    unit_id: bigint('The unit.').notNull(),
    unit_space_id: bigint('The unit space.').notNull(),
    availability_status: text('Status as the source named it.'),
    status_category: text("The status's category (unit_spaces.status_category).").notNull(),
    is_preleased: boolean('Pre-leased, as the status said.'),
    rent: money('Market rent.'),
    valid_from: date("First day of the state: the source's today of the run that saw it first.").notNull(),
    valid_to: date(
      "The source's today of the run that saw the state end (a change, or the space no longer " +
        'listed): the state held up to the day before; null while it holds.',
    ),
    run_id: bigint('The run that wrote the state.'),
    recorded_at: timestamptz('When the row was written.').notNull().defaulted(),
  },
});

/** The parent table first, then its children. */
export const UNIT_TABLES = [UNIT_INVENTORIES, UNITS, UNIT_SPACES] as const;

/** Tables the warehouse keeps from the stream's own (never written by the engine). */
export const UNIT_DERIVED_TABLES = [UNIT_SPACE_STATUS_HISTORY] as const;

/** The rows one property's inventory becomes. */
export type UnitRows = RowsOf<typeof UNIT_TABLES>;
