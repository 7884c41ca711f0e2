import {
  asBoolean,
  asDate,
  asDateTime,
  asId,
  asInt,
  asMoney,
  asPostMonth,
  asText,
  required,
} from '../../source/field-readers.js';
import type { TreeObject } from '../../source/tree.js';
import type { LoadRowOf } from '../../warehouse/schema.js';
import { asObject, listOf, nested, without } from '../record.js';
import type { NormalizeContext, NormalizedRecord } from '../types.js';
import {
  AR_TRANSACTIONS,
  LEASES,
  LEASE_ACTIVITIES,
  LEASE_CUSTOMERS,
  LEASE_INTERVALS,
  LEASE_SCHEDULED_CHARGES,
  LEASE_UNIT_SPACES,
  type LeaseRows,
} from './tables.js';

/** Lease status type ids of the source and their names. */
export const LEASE_STATUSES = {
  1: 'Applicant',
  2: 'Cancelled',
  3: 'Future',
  4: 'Current',
  5: 'Notice',
  6: 'Past',
} as const;

/** Containers of a lease that have tables of their own (kept out of `leases.raw`). */
const CHILD_CONTAINERS = [
  'customers',
  'unitSpaces',
  'scheduledCharges',
  'leaseIntervals',
  'leaseHistory',
  'leaseActivities',
  'arTransactions',
] as const;

/** One getLeases record → rows of leases and its children (r1 or r2). */
export function normalizeLease(value: unknown, context: NormalizeContext): NormalizedRecord<LeaseRows> {
  const lease = asObject(value, 'lease');
  const leaseId = required(asId(lease.id, 'id'), 'id');
  const propertyId = required(asId(lease.propertyId, 'propertyId'), 'propertyId');
  const statusId = asInt(lease.leaseStatusTypeId, 'leaseStatusTypeId');
  const reason = nested(lease, 'moveOutReason');
  const spaces = unitSpaces(lease, leaseId, context);

  const leaseRow: LoadRowOf<typeof LEASES> = {
    lease_id: leaseId,
    property_id: propertyId,
    property_name: asText(lease.propertyName, 'propertyName'),
    lease_status_type_id: statusId,
    lease_status:
      statusId === null ? null : (LEASE_STATUSES[statusId as keyof typeof LEASE_STATUSES] ?? null),
    lease_sub_status: asText(lease.leaseSubStatus, 'leaseSubStatus'),
    lease_type: asText(lease.leaseType, 'leaseType'),
    unit_id: asId(lease.unitId, 'unitId'),
    unit_number: asText(lease.unitNumber, 'unitNumber') ?? asText(lease.unitNumberSpace, 'unitNumberSpace'),
    building_name: asText(lease.buildingName, 'buildingName'),
    floor_plan_id: asId(lease.floorPlanId, 'floorPlanId'),
    floor_plan_name: asText(lease.floorPlanName, 'floorPlanName'),
    space_configuration: asText(lease.spaceConfiguration, 'spaceConfiguration'),
    occupancy_type_id: asInt(lease.occupancyTypeId, 'occupancyTypeId'),
    occupancy_type: asText(lease.occupancyType, 'occupancyType'),
    is_month_to_month: asBoolean(lease.isMonthToMonth, 'isMonthToMonth'),
    move_in_date: asDate(lease.moveInDate, 'moveInDate'),
    move_out_date: asDate(lease.moveOutDate, 'moveOutDate'),
    transfer_date: asDate(lease.transferDate, 'transferDate'),
    move_out_reason_id: asId(reason.id, 'moveOutReason.id'),
    move_out_reason: asText(reason.name, 'moveOutReason.name'),
    move_out_type: asText(reason.moveOutType, 'moveOutReason.moveOutType'),
    current_lease_interval_id: asId(lease.leaseIntervalId, 'leaseIntervalId'),
    lease_interval_status: asText(lease.leaseIntervalStatus, 'leaseIntervalStatus'),
    payment_allowance_type: asText(lease.paymentAllowanceType, 'paymentAllowanceType'),
    is_other_income: asBoolean(lease.isOtherIncomeLease, 'isOtherIncomeLease') ?? false,
    raw: without(lease, CHILD_CONTAINERS),
  };

  const intervals = new Map<number, LoadRowOf<typeof LEASE_INTERVALS>>();
  for (const item of listOf(lease, 'leaseHistory', 'leaseInterval')) {
    const row = intervalRow(item, leaseId, false);
    intervals.set(row.lease_interval_id, row);
  }
  for (const item of listOf(lease, 'leaseIntervals', 'leaseInterval')) {
    const row = intervalRow(item, leaseId, true);
    intervals.set(row.lease_interval_id, row);
  }

  return {
    key: leaseId,
    rows: {
      leases: [leaseRow],
      lease_intervals: [...intervals.values()],
      lease_activities: listOf(lease, 'leaseActivities', 'leaseActivity').map((item) =>
        activityRow(item, leaseId),
      ),
      lease_customers: listOf(lease, 'customers', 'customer').map((item) => customerRow(item, leaseId)),
      lease_unit_spaces: spaces,
      lease_scheduled_charges: listOf(lease, 'scheduledCharges', 'scheduledCharge').map((item) =>
        chargeRow(item, leaseId),
      ),
      ar_transactions: listOf(lease, 'arTransactions', 'arTransaction').map((item) =>
        arRow(item, leaseId, propertyId),
      ),
    },
  };
}

function unitSpaces(
  lease: TreeObject,
  leaseId: number,
  context: NormalizeContext,
): LoadRowOf<typeof LEASE_UNIT_SPACES>[] {
  const listed = listOf(lease, 'unitSpaces', 'unitSpace').map((item) => ({
    lease_id: leaseId,
    unit_space_id: required(asId(item.unitSpaceId, 'unitSpaces.unitSpaceId'), 'unitSpaces.unitSpaceId'),
    unit_space: asText(item.unitSpace, 'unitSpaces.unitSpace'),
    raw: item,
  }));
  if (listed.length || context.version === 'r2') return listed;
  // r1 flattens the (single) unit space onto the lease.
  const id = asId(lease.unitSpaceId, 'unitSpaceId');
  return id === null
    ? []
    : [
        {
          lease_id: leaseId,
          unit_space_id: id,
          unit_space: asText(lease.unitNumberSpace, 'unitNumberSpace'),
          raw: { unitSpaceId: lease.unitSpaceId, unitNumberSpace: lease.unitNumberSpace },
        },
      ];
}

function intervalRow(
  item: TreeObject,
  leaseId: number,
  isCurrent: boolean,
): LoadRowOf<typeof LEASE_INTERVALS> {
  return {
    lease_interval_id: required(asId(item.id, 'leaseInterval.id'), 'leaseInterval.id'),
    lease_id: leaseId,
    lease_interval_type_id: asInt(item.leaseIntervalTypeId, 'leaseInterval.leaseIntervalTypeId'),
    lease_interval_type: asText(item.leaseIntervalTypeName, 'leaseInterval.leaseIntervalTypeName'),
    lease_interval_status_type_id: asInt(
      item.leaseIntervalStatusTypeId,
      'leaseInterval.leaseIntervalStatusTypeId',
    ),
    lease_interval_status: asText(
      item.leaseIntervalStatusTypeName,
      'leaseInterval.leaseIntervalStatusTypeName',
    ),
    start_date: asDate(item.startDate, 'leaseInterval.startDate'),
    end_date: asDate(item.endDate, 'leaseInterval.endDate'),
    application_id: asId(item.applicationId, 'leaseInterval.applicationId'),
    application_completed_on: asDateTime(item.applicationCompletedOn, 'leaseInterval.applicationCompletedOn'),
    interval_datetime: asDateTime(item.intervalDateTime, 'leaseInterval.intervalDateTime'),
    is_current: isCurrent,
    raw: item,
  };
}

function activityRow(item: TreeObject, leaseId: number): LoadRowOf<typeof LEASE_ACTIVITIES> {
  return {
    lease_activity_id: required(asId(item.id, 'leaseActivity.id'), 'leaseActivity.id'),
    lease_id: leaseId,
    event_type_id: asId(item.eventTypeId, 'leaseActivity.eventTypeId'),
    event_type: asText(item.eventType, 'leaseActivity.eventType'),
    event_date: asDate(item.eventDate, 'leaseActivity.eventDate'),
    description: asText(item.description, 'leaseActivity.description'),
    raw: item,
  };
}

function customerRow(item: TreeObject, leaseId: number): LoadRowOf<typeof LEASE_CUSTOMERS> {
  return {
    lease_id: leaseId,
    customer_id: required(asId(item.id, 'customer.id'), 'customer.id'),
    customer_type: asText(item.customerType, 'customer.customerType'),
    first_name: asText(item.firstName, 'customer.firstName'),
    middle_name: asText(item.middleName, 'customer.middleName'),
    last_name: asText(item.lastName, 'customer.lastName'),
    name_full: asText(item.nameFull, 'customer.nameFull'),
    email_address: asText(item.emailAddress, 'customer.emailAddress'),
    lease_customer_status: asText(item.leaseCustomerStatus, 'customer.leaseCustomerStatus'),
    relationship_name: asText(item.relationshipName, 'customer.relationshipName'),
    move_in_date: asDate(item.moveInDate, 'customer.moveInDate'),
    move_out_date: asDate(item.moveOutDate, 'customer.moveOutDate'),
    raw: item,
  };
}

function chargeRow(item: TreeObject, leaseId: number): LoadRowOf<typeof LEASE_SCHEDULED_CHARGES> {
  return {
    scheduled_charge_id: required(asId(item.id, 'scheduledCharge.id'), 'scheduledCharge.id'),
    lease_id: leaseId,
    lease_interval_id: asId(item.leaseIntervalId, 'scheduledCharge.leaseIntervalId'),
    charge_code_id: asId(item.chargeCodeId, 'scheduledCharge.chargeCodeId'),
    charge_code: asText(item.chargeCode, 'scheduledCharge.chargeCode'),
    charge_type: asText(item.chargeType, 'scheduledCharge.chargeType'),
    charge_usage: asText(item.chargeUsage, 'scheduledCharge.chargeUsage'),
    frequency: asText(item.frequency, 'scheduledCharge.frequency'),
    start_date: asDate(item.startDate, 'scheduledCharge.startDate'),
    end_date: asDate(item.endDate, 'scheduledCharge.endDate'),
    amount: asMoney(item.amount, 'scheduledCharge.amount'),
    description: asText(item.description, 'scheduledCharge.description'),
    application_id: asId(item.applicationId, 'scheduledCharge.applicationId'),
    raw: item,
  };
}

function arRow(item: TreeObject, leaseId: number, propertyId: number): LoadRowOf<typeof AR_TRANSACTIONS> {
  return {
    ar_transaction_id: required(asId(item.id, 'arTransaction.id'), 'arTransaction.id'),
    lease_id: leaseId,
    property_id: propertyId,
    lease_interval_id: asId(item.leaseIntervalId, 'arTransaction.leaseIntervalId'),
    ar_code_id: asId(item.arCodeId, 'arTransaction.arCodeId'),
    ar_code_name: asText(item.arCodeName, 'arTransaction.arCodeName'),
    transaction_type_id: asInt(item.transactionTypeId, 'arTransaction.transactionTypeId'),
    description: asText(item.description, 'arTransaction.description'),
    transaction_date: asDate(item.transactionDate, 'arTransaction.transactionDate'),
    post_date: asDate(item.postDate, 'arTransaction.postDate'),
    post_month: asPostMonth(item.postMonth, 'arTransaction.postMonth'),
    due_date: asDate(item.dueDate, 'arTransaction.dueDate'),
    amount: asMoney(item.amount, 'arTransaction.amount'),
    amount_paid: asMoney(item.amountPaid, 'arTransaction.amountPaid'),
    balance_due: asMoney(item.balanceDue, 'arTransaction.balanceDue'),
    is_temporary: asBoolean(item.isTemporary, 'arTransaction.isTemporary'),
    is_reversed: asBoolean(item.isReversed, 'arTransaction.isReversed'),
    scheduled_charge_id: asId(item.scheduledChargeId, 'arTransaction.scheduledChargeId'),
    ar_payment_id: asId(item.arPaymentId, 'arTransaction.arPaymentId'),
    raw: item,
  };
}
