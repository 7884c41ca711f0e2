/**
 * Reference data of the simulated property-management system: AR codes, transaction types,
 * move-out reasons, GL accounts, catalog items, job templates, vendor categories. Records point
 * at these shared objects and strings, so the large data set holds each only once.
 */

/** AR transaction type ids (ours; sent as digit strings). */
export const AR_TRANSACTION_TYPE = {
  Charge: '1',
  Payment: '2',
  Concession: '3',
  Deposit: '4',
  DepositApplication: '5',
  Refund: '6',
  WriteOff: '7',
} as const;

/** One AR code: integer id, ledger name, resident-facing name (for residentFriendlyMode), type. */
export interface ArCode {
  id: number;
  name: string;
  residentName: string;
  transactionTypeId: (typeof AR_TRANSACTION_TYPE)[keyof typeof AR_TRANSACTION_TYPE];
  chargeType: string;
}

/** The AR codes of the system, by key. */
export const AR_CODES = {
  rent: { id: 101, name: 'Rent', residentName: 'Monthly Rent', transactionTypeId: '1', chargeType: 'Rent' },
  petRent: {
    id: 102,
    name: 'Pet Rent',
    residentName: 'Pet Rent',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
  utilities: {
    id: 103,
    name: 'Utilities - RUBS',
    residentName: 'Water, Sewer & Trash',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
  parking: {
    id: 104,
    name: 'Parking',
    residentName: 'Reserved Parking',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
  storage: {
    id: 105,
    name: 'Storage',
    residentName: 'Storage Unit',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
  trash: {
    id: 106,
    name: 'Valet Trash',
    residentName: 'Doorstep Trash Service',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
  mtmFee: {
    id: 107,
    name: 'Month-to-Month Fee',
    residentName: 'Month-to-Month Premium',
    transactionTypeId: '1',
    chargeType: 'Rent',
  },
  lateFee: { id: 110, name: 'Late Fee', residentName: 'Late Fee', transactionTypeId: '1', chargeType: 'Fee' },
  nsfFee: {
    id: 111,
    name: 'NSF Fee',
    residentName: 'Returned Payment Fee',
    transactionTypeId: '1',
    chargeType: 'Fee',
  },
  applicationFee: {
    id: 120,
    name: 'Application Fee',
    residentName: 'Application Fee',
    transactionTypeId: '1',
    chargeType: 'Fee',
  },
  adminFee: {
    id: 121,
    name: 'Admin Fee',
    residentName: 'Administrative Fee',
    transactionTypeId: '1',
    chargeType: 'Fee',
  },
  deposit: {
    id: 130,
    name: 'Security Deposit',
    residentName: 'Security Deposit',
    transactionTypeId: '4',
    chargeType: 'Deposit',
  },
  depositApplied: {
    id: 131,
    name: 'Security Deposit Applied',
    residentName: 'Deposit Applied to Balance',
    transactionTypeId: '5',
    chargeType: 'Deposit',
  },
  moveInSpecial: {
    id: 140,
    name: 'Concession - Move-In Special',
    residentName: 'Move-In Special',
    transactionTypeId: '3',
    chargeType: 'Concession',
  },
  renewalConcession: {
    id: 141,
    name: 'Concession - Renewal',
    residentName: 'Renewal Discount',
    transactionTypeId: '3',
    chargeType: 'Concession',
  },
  serviceCredit: {
    id: 142,
    name: 'Concession - Service Credit',
    residentName: 'Courtesy Credit',
    transactionTypeId: '3',
    chargeType: 'Concession',
  },
  cleaning: {
    id: 150,
    name: 'Cleaning Charge',
    residentName: 'Move-Out Cleaning',
    transactionTypeId: '1',
    chargeType: 'Fee',
  },
  damages: {
    id: 151,
    name: 'Damages',
    residentName: 'Repairs & Damages',
    transactionTypeId: '1',
    chargeType: 'Fee',
  },
  payment: {
    id: 160,
    name: 'Resident Payment',
    residentName: 'Payment - Thank You',
    transactionTypeId: '2',
    chargeType: 'Payment',
  },
  depositRefund: {
    id: 170,
    name: 'Deposit Refund',
    residentName: 'Deposit Refund Check',
    transactionTypeId: '6',
    chargeType: 'Refund',
  },
  writeOff: {
    id: 180,
    name: 'Bad Debt Write Off',
    residentName: 'Balance Transferred to Collections',
    transactionTypeId: '7',
    chargeType: 'Write Off',
  },
  estimatedUtilities: {
    id: 190,
    name: 'Estimated Utilities',
    residentName: 'Estimated Utilities (pending)',
    transactionTypeId: '1',
    chargeType: 'Other Income',
  },
} as const satisfies Record<string, ArCode>;

/** AR code key. */
export type ArCodeKey = keyof typeof AR_CODES;

/** Every AR code, for lookups by id. */
export const AR_CODE_LIST: readonly ArCode[] = Object.values(AR_CODES);

const residentNames = new Map<number, string>(AR_CODE_LIST.map((c) => [c.id, c.residentName]));
/** The resident-facing name of an AR code id (the server's residentFriendlyMode), or undefined. */
export function residentFriendlyName(arCodeId: number): string | undefined {
  return residentNames.get(arCodeId);
}

/** Move-out reasons, in the r2 `moveOutReason` shape. */
export const MOVE_OUT_REASONS = {
  purchasedHome: { id: '12', name: 'Purchased Home', moveOutTypeId: '4', moveOutType: 'Move Out' },
  jobRelocation: { id: '13', name: 'Job Relocation', moveOutTypeId: '4', moveOutType: 'Move Out' },
  rentTooHigh: { id: '14', name: 'Rent Too High', moveOutTypeId: '4', moveOutType: 'Move Out' },
  needLarger: { id: '15', name: 'Needed Larger Unit', moveOutTypeId: '4', moveOutType: 'Move Out' },
  family: { id: '16', name: 'Moving In With Family', moveOutTypeId: '4', moveOutType: 'Move Out' },
  dissatisfied: { id: '17', name: 'Dissatisfied With Service', moveOutTypeId: '4', moveOutType: 'Move Out' },
  leavingArea: { id: '18', name: 'Leaving the Area', moveOutTypeId: '4', moveOutType: 'Move Out' },
  nonPayment: { id: '21', name: 'Non-Payment of Rent', moveOutTypeId: '2', moveOutType: 'Eviction' },
  leaseViolation: { id: '22', name: 'Lease Violation', moveOutTypeId: '2', moveOutType: 'Eviction' },
  abandoned: { id: '31', name: 'Abandoned Unit', moveOutTypeId: '3', moveOutType: 'Skip' },
  transfer: { id: '41', name: 'Transferred to Another Unit', moveOutTypeId: '5', moveOutType: 'Transfer' },
} as const;

/** Move-out reason key. */
export type MoveOutReasonKey = keyof typeof MOVE_OUT_REASONS;

/** Reasons a resident gives with an ordinary notice, with weights. */
export const VOLUNTARY_REASONS = [
  'purchasedHome',
  'jobRelocation',
  'rentTooHigh',
  'needLarger',
  'family',
  'dissatisfied',
  'leavingArea',
] as const;
/** Weights of VOLUNTARY_REASONS. */
export const VOLUNTARY_REASON_WEIGHTS = [22, 18, 20, 12, 8, 6, 14] as const;

/** Lease status names by status id. */
export const LEASE_STATUS_NAMES = [
  '',
  'Applicant',
  'Cancelled',
  'Future',
  'Current',
  'Notice',
  'Past',
] as const;

/** Lease interval type names by id. */
export const INTERVAL_TYPE_NAMES = [
  '',
  'Application',
  'Lease Modification',
  'Renewal',
  'Month To Month',
  'Transfer',
] as const;

/** r1 lease activity event types. */
export const LEASE_EVENT = {
  application: { id: '1', name: 'Application Submitted' },
  approval: { id: '2', name: 'Application Approved' },
  moveIn: { id: '3', name: 'Move In' },
  renewal: { id: '4', name: 'Renewal' },
  monthToMonth: { id: '5', name: 'Month To Month' },
  notice: { id: '6', name: 'Notice' },
  moveOut: { id: '7', name: 'Move Out' },
  cancellation: { id: '8', name: 'Application Cancelled' },
  transfer: { id: '9', name: 'Transfer' },
  modification: { id: '10', name: 'Lease Modification' },
} as const;

/** A GL account as line items carry it. */
export interface GlAccount {
  id: string;
  name: string;
  accountNumber: string;
}

/** GL accounts used on invoice lines, by key. */
export const GL_ACCOUNTS = {
  electric: { id: '6110', name: 'Electricity', accountNumber: '6110-000' },
  water: { id: '6120', name: 'Water & Sewer', accountNumber: '6120-000' },
  gas: { id: '6130', name: 'Gas', accountNumber: '6130-000' },
  trash: { id: '6140', name: 'Trash Removal', accountNumber: '6140-000' },
  internet: { id: '6150', name: 'Cable & Internet', accountNumber: '6150-000' },
  repairs: { id: '6210', name: 'Repairs & Maintenance', accountNumber: '6210-000' },
  plumbing: { id: '6215', name: 'Plumbing Repairs', accountNumber: '6215-000' },
  hvac: { id: '6220', name: 'HVAC Repairs', accountNumber: '6220-000' },
  appliances: { id: '6225', name: 'Appliance Repairs', accountNumber: '6225-000' },
  makeReady: { id: '6230', name: 'Make Ready - Turnover', accountNumber: '6230-000' },
  painting: { id: '6235', name: 'Painting', accountNumber: '6235-000' },
  cleaning: { id: '6240', name: 'Cleaning Services', accountNumber: '6240-000' },
  pest: { id: '6245', name: 'Pest Control', accountNumber: '6245-000' },
  landscaping: { id: '6250', name: 'Landscaping & Grounds', accountNumber: '6250-000' },
  snow: { id: '6255', name: 'Snow Removal', accountNumber: '6255-000' },
  supplies: { id: '6310', name: 'Maintenance Supplies', accountNumber: '6310-000' },
  officeSupplies: { id: '6320', name: 'Office Supplies', accountNumber: '6320-000' },
  marketing: { id: '6410', name: 'Advertising & Marketing', accountNumber: '6410-000' },
  legal: { id: '6510', name: 'Legal Fees', accountNumber: '6510-000' },
  accounting: { id: '6520', name: 'Accounting & Audit', accountNumber: '6520-000' },
  capitalRoof: { id: '1610', name: 'Capital Improvements - Building', accountNumber: '1610-000' },
  capitalSite: { id: '1620', name: 'Capital Improvements - Site', accountNumber: '1620-000' },
  capitalInterior: { id: '1630', name: 'Capital Improvements - Interiors', accountNumber: '1630-000' },
  residentDeposits: { id: '2210', name: 'Resident Security Deposits', accountNumber: '2210-000' },
  salesTax: { id: '6315', name: 'Sales Tax on Purchases', accountNumber: '6315-000' },
  freight: { id: '6316', name: 'Freight & Delivery', accountNumber: '6316-000' },
  discounts: { id: '6890', name: 'Purchase Discounts', accountNumber: '6890-000' },
} as const satisfies Record<string, GlAccount>;

/** A GL account key. */
export type GlKey = keyof typeof GL_ACCOUNTS;

/** Departments lines are coded to. */
export const DEPARTMENTS = [
  { id: '10', name: 'Administration' },
  { id: '20', name: 'Maintenance' },
  { id: '30', name: 'Make Ready' },
  { id: '40', name: 'Grounds' },
  { id: '50', name: 'Capital Projects' },
] as const;

/** Catalog items (for catalog invoices), with price in cents. */
export const CATALOG_ITEMS = [
  { id: '3101', name: 'Air Filter 20x25x1 (12 pk)', unit: 'Case', cents: 4899, gl: 'supplies' },
  { id: '3102', name: 'LED Bulb A19 60W (24 pk)', unit: 'Case', cents: 6299, gl: 'supplies' },
  { id: '3103', name: 'Interior Paint Eggshell White', unit: 'Gallon', cents: 3475, gl: 'supplies' },
  { id: '3104', name: 'Smoke Detector 10-Year', unit: 'Each', cents: 2950, gl: 'supplies' },
  { id: '3105', name: 'Faucet Cartridge Single Handle', unit: 'Each', cents: 1825, gl: 'supplies' },
  { id: '3106', name: 'Toilet Flapper Universal', unit: 'Each', cents: 695, gl: 'supplies' },
  { id: '3107', name: 'Carpet Cleaning Solution', unit: 'Gallon', cents: 2240, gl: 'supplies' },
  { id: '3108', name: 'Door Lever Set Satin Nickel', unit: 'Each', cents: 3910, gl: 'supplies' },
  { id: '3109', name: 'Ice Melt 50 lb', unit: 'Bag', cents: 1799, gl: 'snow' },
  { id: '3110', name: 'Copy Paper Letter (10 ream)', unit: 'Case', cents: 5450, gl: 'officeSupplies' },
  { id: '3111', name: 'Range Burner Element 8in', unit: 'Each', cents: 2615, gl: 'supplies' },
  { id: '3112', name: 'Blinds 2in Faux Wood 35x64', unit: 'Each', cents: 3199, gl: 'supplies' },
  { id: '3113', name: 'Vinyl Plank Flooring', unit: 'Box', cents: 5825, gl: 'supplies' },
  { id: '3114', name: 'Trash Bags 55 gal (100 ct)', unit: 'Case', cents: 3860, gl: 'supplies' },
] as const;

/** Capital job templates (for job-cost invoices): name, phases, GL account. */
export const JOB_TEMPLATES = [
  { name: 'Roof Replacement', phases: ['Tear-Off', 'Install', 'Inspection'], gl: 'capitalRoof' },
  { name: 'Parking Lot Resurfacing', phases: ['Milling', 'Paving', 'Striping'], gl: 'capitalSite' },
  { name: 'Clubhouse Renovation', phases: ['Demolition', 'Build-Out', 'Finishes'], gl: 'capitalInterior' },
  { name: 'Unit Interior Upgrades', phases: ['Flooring', 'Cabinets', 'Fixtures'], gl: 'capitalInterior' },
  { name: 'Exterior Paint', phases: ['Prep', 'Paint', 'Touch-Up'], gl: 'capitalRoof' },
  { name: 'Boiler Replacement', phases: ['Removal', 'Install', 'Commissioning'], gl: 'capitalRoof' },
] as const;

/** Cost codes used on job-cost lines. */
export const COST_CODES = [
  { id: '01-100', name: 'General Conditions' },
  { id: '02-200', name: 'Site Work' },
  { id: '06-100', name: 'Rough Carpentry' },
  { id: '07-300', name: 'Roofing' },
  { id: '09-900', name: 'Painting & Coatings' },
  { id: '09-600', name: 'Flooring' },
  { id: '15-000', name: 'Mechanical' },
  { id: '16-000', name: 'Electrical' },
] as const;

/** What kind of business a vendor is; decides its invoices. */
export const VENDOR_CATEGORIES = ['utility', 'maintenance', 'supplies', 'contractor', 'services'] as const;
/** A vendor category. */
export type VendorCategory = (typeof VENDOR_CATEGORIES)[number];

/** Vendor name parts and their work, by category. */
export const VENDOR_TEMPLATES: Record<
  VendorCategory,
  { names: readonly string[]; work: readonly { text: string; gl: GlKey; lo: number; hi: number }[] }
> = {
  utility: {
    names: [
      'Front Range Power & Light',
      'Mountain Water Utility',
      'Rocky Mountain Natural Gas',
      'Summit Waste Services',
      'Peak Fiber Internet',
      'High Plains Electric Co-op',
      'Metro Wastewater District',
    ],
    work: [
      { text: 'Electric service - common areas', gl: 'electric', lo: 40000, hi: 380000 },
      { text: 'Water & sewer service', gl: 'water', lo: 90000, hi: 640000 },
      { text: 'Natural gas service', gl: 'gas', lo: 15000, hi: 210000 },
      { text: 'Trash & recycling pickup', gl: 'trash', lo: 35000, hi: 190000 },
      { text: 'Bulk internet service', gl: 'internet', lo: 60000, hi: 520000 },
    ],
  },
  maintenance: {
    names: [
      'Apex Plumbing',
      'Blue Sky HVAC',
      'Cornerstone Appliance Repair',
      'Evergreen Landscaping',
      'Pristine Turnover Cleaning',
      'Guardian Pest Control',
      'Alpine Snow Removal',
      'True Color Painting',
      'Keystone Handyman Services',
      'Red Rocks Carpet Care',
    ],
    work: [
      { text: 'Service call - water heater', gl: 'plumbing', lo: 18500, hi: 145000 },
      { text: 'HVAC repair', gl: 'hvac', lo: 22000, hi: 260000 },
      { text: 'Appliance repair', gl: 'appliances', lo: 9500, hi: 65000 },
      { text: 'Monthly grounds maintenance', gl: 'landscaping', lo: 120000, hi: 480000 },
      { text: 'Turnover cleaning', gl: 'makeReady', lo: 17500, hi: 42500 },
      { text: 'Quarterly pest treatment', gl: 'pest', lo: 25000, hi: 110000 },
      { text: 'Snow plowing and de-icing', gl: 'snow', lo: 45000, hi: 380000 },
      { text: 'Unit paint - turnover', gl: 'painting', lo: 32500, hi: 95000 },
      { text: 'General repairs', gl: 'repairs', lo: 8000, hi: 150000 },
      { text: 'Carpet cleaning', gl: 'cleaning', lo: 9500, hi: 28000 },
    ],
  },
  supplies: {
    names: [
      'Mountain West Supply',
      'Summit Maintenance Supply',
      'Frontier Facility Products',
      'Cascade Hardware Wholesale',
    ],
    work: [{ text: 'Maintenance supplies', gl: 'supplies', lo: 5000, hi: 90000 }],
  },
  contractor: {
    names: [
      'Granite Peak Builders',
      'Bighorn Roofing',
      'Continental Paving',
      'Meridian General Contractors',
      'Silverline Renovations',
    ],
    work: [{ text: 'Progress billing', gl: 'capitalSite', lo: 500000, hi: 4500000 }],
  },
  services: {
    names: [
      'Lindqvist & Ortega LLP',
      'Clearview Accounting Group',
      'ApartmentLeads Marketing',
      'Rocky Mountain Process Servers',
    ],
    work: [
      { text: 'Legal services - eviction filing', gl: 'legal', lo: 35000, hi: 180000 },
      { text: 'Monthly bookkeeping review', gl: 'accounting', lo: 45000, hi: 150000 },
      { text: 'Internet listing services', gl: 'marketing', lo: 29900, hi: 129900 },
    ],
  },
};

/** AP payment types (remittance and payments). */
export const AP_PAYMENT_TYPES = [
  { id: '1', name: 'Check' },
  { id: '2', name: 'ACH' },
  { id: '3', name: 'Credit Card' },
  { id: '4', name: 'Wire' },
] as const;

/** Reasons given when a payment is voided. */
export const VOID_REASONS = [
  'Lost in mail',
  'Issued to wrong vendor',
  'Duplicate payment',
  'Incorrect amount',
  'Vendor requested reissue',
  'Stale dated check',
] as const;

/** People who void payments and approve things. */
export const STAFF_USERS = ['jmartinez', 'kchen', 'apatel', 'rwilson', 'dgarcia', 'lthompson'] as const;
