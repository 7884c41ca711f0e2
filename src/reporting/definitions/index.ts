import type { ReportingView } from '../definition.js';
import { AP_OPEN_BY_PROPERTY } from './ap-open-by-property.js';
import { AP_OPEN_INVOICES } from './ap-open-invoices.js';
import { AR_ACTIVITY_MONTHLY } from './ar-activity-monthly.js';
import { AR_AGING } from './ar-aging.js';
import { AR_AGING_AS_OF } from './ar-aging-as-of.js';
import { AR_AGING_BY_PROPERTY } from './ar-aging-by-property.js';
import { BOX_SCORE } from './box-score.js';
import { LEASE_ACTIVITY_MONTHLY } from './lease-activity-monthly.js';
import { LEASE_EXPIRATIONS } from './lease-expirations.js';
import { OCCUPANCY_MONTHLY } from './occupancy-monthly.js';
import { PORTFOLIO } from './portfolio.js';
import { PROPERTIES } from './properties.js';
import { RENT_ROLL } from './rent-roll.js';
import { UNITS } from './units.js';
import { UNIT_RENT_ROLL } from './unit-rent-roll.js';
import { VENDOR_SPEND_MONTHLY } from './vendor-spend-monthly.js';
import { VOIDED_PAYMENTS_LOG } from './voided-payments-log.js';

/**
 * Every view of `reporting`, in the order docs/reporting.md lists them. To add a view: a file
 * here (one ReportingView), its line below, then `propsync migrate` (docs/reporting.md).
 */
export const REPORTING_DEFINITIONS: readonly ReportingView[] = [
  PORTFOLIO,
  RENT_ROLL,
  UNIT_RENT_ROLL,
  OCCUPANCY_MONTHLY,
  BOX_SCORE,
  UNITS,
  LEASE_ACTIVITY_MONTHLY,
  LEASE_EXPIRATIONS,
  AR_AGING,
  AR_AGING_BY_PROPERTY,
  AR_AGING_AS_OF,
  AR_ACTIVITY_MONTHLY,
  VENDOR_SPEND_MONTHLY,
  AP_OPEN_INVOICES,
  AP_OPEN_BY_PROPERTY,
  VOIDED_PAYMENTS_LOG,
  PROPERTIES,
];
