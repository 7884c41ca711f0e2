/**
 * Resident-facing names of charge codes, for getLeases with `residentFriendlyMode=1`: the
 * name a resident sees on a statement instead of the accounting name. Known codes come from
 * the table; any other name is made readable (code words split, capitalised) and marked as
 * the resident's view, so that the mode always changes what a client receives.
 */
const RESIDENT_NAMES: Record<string, string> = {
  rent: 'Monthly Rent',
  'base rent': 'Monthly Rent',
  'market rent': 'Monthly Rent',
  'pet rent': 'Monthly Pet Rent',
  'pet fee': 'Pet Fee (one-time)',
  'pet deposit': 'Refundable Pet Deposit',
  parking: 'Parking Space',
  'parking rent': 'Parking Space',
  garage: 'Garage Space',
  storage: 'Storage Unit',
  'storage rent': 'Storage Unit',
  'security deposit': 'Refundable Security Deposit',
  deposit: 'Refundable Security Deposit',
  'application fee': 'Application Processing Fee',
  'admin fee': 'Move-In Administration Fee',
  'administrative fee': 'Move-In Administration Fee',
  'late fee': 'Late Payment Fee',
  'nsf fee': 'Returned Payment Fee',
  concession: 'Rent Discount',
  'rent concession': 'Rent Discount',
  'month to month fee': 'Month-to-Month Premium',
  'mtm fee': 'Month-to-Month Premium',
  trash: 'Trash Service',
  water: 'Water Service',
  sewer: 'Sewer Service',
  electric: 'Electricity',
  gas: 'Gas Service',
  'utility billing': 'Utilities',
  'renters insurance': 'Renters Insurance',
  'cleaning fee': 'Cleaning Charge',
  'damage charge': 'Damage Repair Charge',
  'early termination fee': 'Lease Break Fee',
  'transfer fee': 'Unit Transfer Fee',
  'deposit refund': 'Deposit Refund',
  'write off': 'Balance Written Off',
  'bad debt write off': 'Balance Written Off',
  payment: 'Payment Received',
};

function normalise(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The resident-facing name of a charge code's accounting name. */
export function residentChargeName(name: string): string {
  const key = normalise(name);
  const known = RESIDENT_NAMES[key];
  if (known) return known;
  const readable = key.replace(/\b[a-z]/g, (c) => c.toUpperCase());
  return `${readable} (Resident)`;
}
