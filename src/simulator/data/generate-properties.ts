/**
 * The portfolio: properties with addresses, buildings, units (floor plans, asking rents, a few
 * multi-space units), parking and storage spaces for other-income leases, and each property's
 * fixed settings (opening day, fees, exports, vendors, capital jobs). Deterministic from the
 * seed and the scale; the opening days are counted back from "today".
 */
import { addMonths, ymd, type EpochDay } from './calendar.js';
import type { SimProperty, SimUnit } from './model.js';
import { centsToString, roundToDollars } from './money.js';
import { CITIES, PROPERTY_SUFFIXES, PROPERTY_WORDS, streetLine } from './names.js';
import { Rng, STREAM } from './random.js';
import { GL_ACCOUNTS, JOB_TEMPLATES, VENDOR_TEMPLATES, type VendorCategory } from './reference.js';
import { VENDOR_ID_BASE } from './invoice-life.js';
import type { Scale, WorldJob, WorldProperty, WorldVendor } from './world.js';

/** Size settings of each scale. */
export const SCALE_SETTINGS: Record<
  Scale,
  { properties: number; minUnits: number; maxUnits: number; minHistoryDays: number; maxHistoryDays: number }
> = {
  small: { properties: 4, minUnits: 38, maxUnits: 50, minHistoryDays: 620, maxHistoryDays: 760 },
  medium: { properties: 20, minUnits: 70, maxUnits: 150, minHistoryDays: 560, maxHistoryDays: 800 },
  large: { properties: 200, minUnits: 70, maxUnits: 150, minHistoryDays: 560, maxHistoryDays: 800 },
};

/** Vendor invoices reach back at least this many days (the books open before leasing starts). */
export const INVOICE_HISTORY_DAYS = 740;

/** First property id; properties are numbered from here. */
export const PROPERTY_ID_BASE = 100001;

const FLOOR_PLANS = [
  { code: 'S1', name: 'S1 - Studio', beds: 0, rent: [95000, 125000], weight: 10 },
  { code: 'A1', name: 'A1 - 1 Bed 1 Bath', beds: 1, rent: [115000, 150000], weight: 30 },
  { code: 'A2', name: 'A2 - 1 Bed 1 Bath Den', beds: 1, rent: [130000, 165000], weight: 12 },
  { code: 'B1', name: 'B1 - 2 Bed 2 Bath', beds: 2, rent: [150000, 200000], weight: 28 },
  { code: 'B2', name: 'B2 - 2 Bed 1 Bath', beds: 2, rent: [140000, 180000], weight: 8 },
  { code: 'C1', name: 'C1 - 3 Bed 2 Bath', beds: 3, rent: [190000, 245000], weight: 8 },
  { code: 'TH', name: 'TH - Townhome with Garage', beds: 3, rent: [220000, 290000], weight: 4 },
] as const;

const PROPERTY_TYPES = [
  'Apartment',
  'Apartment',
  'Apartment',
  'Apartment',
  'Townhome',
  'Senior',
  'Student',
] as const;

/** Vendors of the portfolio (shared by properties). */
export function generateVendors(seed: number, count: number): WorldVendor[] {
  const rng = new Rng(seed, STREAM.vendors);
  const vendors: WorldVendor[] = [];
  const weights: Record<VendorCategory, number> = {
    utility: 5,
    maintenance: 10,
    supplies: 3,
    contractor: 2,
    services: 3,
  };
  const categories = Object.keys(weights) as VendorCategory[];
  for (let i = 0; i < count; i++) {
    // The first vendors cover every category, so even a small portfolio has each kind.
    const category =
      i < categories.length * 2
        ? categories[i % categories.length]
        : categories[rng.weighted(categories.map((c) => weights[c]))];
    const template = VENDOR_TEMPLATES[category];
    const id = VENDOR_ID_BASE + i;
    const baseName = template.names[(i * 7 + rng.int(0, template.names.length - 1)) % template.names.length];
    const city = rng.pick(CITIES);
    const generation = Math.floor(i / 40);
    const name =
      generation === 0 ? baseName : `${baseName} ${['of', 'at', '-'][generation % 3]} ${city.city}`;
    const address = {
      street: streetLine(rng),
      city: city.city,
      state: city.state,
      postalCode: `${city.zip}${String(rng.int(1, 99)).padStart(2, '0')}`,
      country: 'US',
    };
    const payType =
      category === 'utility' ? (rng.chance(0.7) ? 1 : 0) : rng.chance(0.6) ? 0 : rng.chance(0.8) ? 1 : 2;
    const PAY = [
      { id: '1', name: 'Check' },
      { id: '2', name: 'ACH' },
      { id: '3', name: 'Credit Card' },
    ][payType];
    vendors.push({
      id,
      category,
      workIndex: rng.int(0, template.work.length - 1),
      record: {
        id: String(id),
        name,
        locationName: `${city.city} Office`,
        locationCode: `${city.state}${String(i % 1000).padStart(3, '0')}`,
        externalId: `V-${String(id).padStart(6, '0')}`,
        address,
      },
      remittance: {
        id: String(id * 10 + 1),
        name: `${name} - Remittance`,
        apPaymentTypeId: PAY.id,
        apPaymentType: PAY.name,
        street: rng.chance(0.4) ? `PO Box ${rng.int(1000, 99999)}` : address.street,
        city: address.city,
        state: address.state,
        postalCode: address.postalCode,
        country: 'US',
      },
      termsDays: category === 'utility' ? 21 : rng.pick([15, 30, 30, 30, 45]),
    });
  }
  return vendors;
}

function pickVendors(rng: Rng, vendors: WorldVendor[]): number[] {
  const chosen: number[] = [];
  const want: Record<VendorCategory, number> = {
    utility: rng.int(3, 5),
    maintenance: rng.int(5, 8),
    supplies: rng.int(1, 2),
    contractor: rng.int(1, 2),
    services: rng.int(1, 2),
  };
  const usedWork = new Set<number>();
  const start = rng.int(0, vendors.length - 1);
  for (let k = 0; k < vendors.length; k++) {
    const v = vendors[(start + k) % vendors.length];
    if (want[v.category] <= 0) continue;
    if (v.category === 'utility') {
      if (usedWork.has(v.workIndex)) continue;
      usedWork.add(v.workIndex);
    }
    want[v.category]--;
    chosen.push(v.id);
  }
  return chosen.sort((a, b) => a - b);
}

/** Properties with units, and their world settings. */
export function generateProperties(
  seed: number,
  scale: Scale,
  today: EpochDay,
  vendors: WorldVendor[],
): { properties: SimProperty[]; world: WorldProperty[] } {
  const settings = SCALE_SETTINGS[scale];
  const rng = new Rng(seed, STREAM.properties);
  const properties: SimProperty[] = [];
  const world: WorldProperty[] = [];
  const usedNames = new Set<string>();
  let unitId = 20001;
  let spaceId = 70001;
  let floorPlanId = 501;
  let jobId = 9001;
  for (let p = 0; p < settings.properties; p++) {
    const propertyId = PROPERTY_ID_BASE + p;
    const city = CITIES[(p * 5 + rng.int(0, 2)) % CITIES.length];
    let name = '';
    for (let attempt = 0; attempt < 20 && (name === '' || usedNames.has(name)); attempt++)
      name = `${rng.pick(PROPERTY_WORDS)} ${rng.pick(PROPERTY_SUFFIXES)}`;
    if (usedNames.has(name)) name = `${name} ${city.city}`;
    if (usedNames.has(name)) name = `${name} ${p + 1}`;
    usedNames.add(name);
    const type = rng.pick(PROPERTY_TYPES);
    const street = streetLine(rng);
    const rentFactor =
      city.city === 'Boulder' || city.city === 'Denver'
        ? 1.15
        : city.state === 'CO' || city.state === 'UT'
          ? 1
          : 0.85;
    const unitCount = rng.int(settings.minUnits, settings.maxUnits);
    const plans = FLOOR_PLANS.filter(() => rng.chance(0.75));
    if (plans.length < 2) plans.push(FLOOR_PLANS[1], FLOOR_PLANS[3]);
    const planIds = plans.map(() => String(floorPlanId++));
    const perBuilding = rng.pick([12, 16, 24, 24, 36]);
    const buildings: { name: string; units: SimUnit[] }[] = [];
    for (let u = 0; u < unitCount; u++) {
      const b = Math.floor(u / perBuilding);
      if (!buildings[b]) buildings.push({ name: `Building ${b + 1}`, units: [] });
      const k = rng.weighted(plans.map((x) => x.weight));
      const plan = plans[k];
      const inBuilding = u - b * perBuilding;
      const floor = Math.floor(inBuilding / 8) + 1;
      const unitNumber = `${b + 1}${floor}${String((inBuilding % 8) + 1).padStart(2, '0')}`;
      const multi = plan.code === 'TH' || rng.chance(0.03);
      const spaces = multi
        ? Array.from({ length: plan.code === 'TH' ? 2 : rng.int(2, 3) }, (_, s) => ({
            unitSpaceId: spaceId++,
            unitSpace: `${unitNumber}-${String.fromCharCode(65 + s)}`,
          }))
        : [{ unitSpaceId: spaceId++, unitSpace: unitNumber }];
      buildings[b].units.push({
        unitId: String(unitId++),
        unitNumber,
        buildingName: buildings[b].name,
        floorPlanId: planIds[k],
        floorPlanName: plan.name,
        spaces,
        marketRent: centsToString(roundToDollars(rng.int(plan.rent[0], plan.rent[1]) * rentFactor, 5)),
      });
    }
    const parking: SimUnit[] = [];
    const storage: SimUnit[] = [];
    const parkingPlan = String(floorPlanId++);
    const storagePlan = String(floorPlanId++);
    const parkingCount = Math.round(unitCount * (0.08 + 0.06 * rng.float()));
    const storageCount = Math.round(unitCount * (0.03 + 0.04 * rng.float()));
    for (let i = 0; i < parkingCount; i++) {
      const n = `P-${String(i + 1).padStart(3, '0')}`;
      parking.push({
        unitId: String(unitId++),
        unitNumber: n,
        buildingName: 'Parking',
        floorPlanId: parkingPlan,
        floorPlanName: 'Reserved Parking',
        spaces: [{ unitSpaceId: spaceId++, unitSpace: n }],
        marketRent: centsToString(rng.pick([3500, 5000, 7500, 9500])),
      });
    }
    for (let i = 0; i < storageCount; i++) {
      const n = `S-${String(i + 1).padStart(2, '0')}`;
      storage.push({
        unitId: String(unitId++),
        unitNumber: n,
        buildingName: 'Storage',
        floorPlanId: storagePlan,
        floorPlanName: 'Storage Unit',
        spaces: [{ unitSpaceId: spaceId++, unitSpace: n }],
        marketRent: centsToString(rng.pick([4500, 6000, 8500])),
      });
    }
    if (parking.length > 0) buildings.push({ name: 'Parking', units: parking });
    if (storage.length > 0) buildings.push({ name: 'Storage', units: storage });
    const postal = `${city.zip}${String(rng.int(1, 99)).padStart(2, '0')}`;
    const lookupCode = `${name
      .replace(/[^A-Za-z ]/g, '')
      .split(' ')
      .filter(Boolean)
      .map((w) => w[0].toUpperCase())
      .join('')
      .slice(0, 4)}${String(p + 1).padStart(3, '0')}`;
    // Derived without the generator, so that adding these fields left every other value of the data set as it was.
    const month = ymd(today);
    const postMonth = `${String(month.month).padStart(2, '0')}/${month.year}`;
    properties.push({
      PropertyID: propertyId,
      MarketingName: name,
      Type: type,
      IsDisabled: 0,
      ...(p % 4 === 1 ? { ParentPropertyID: propertyId - 1 } : {}),
      LookupCode: lookupCode,
      YearBuilt: 1962 + ((p * 17) % 60),
      Address: { Address: street, City: city.city, State: city.state, PostalCode: postal, Country: 'US' },
      PostMonths: { ArPostMonth: postMonth, ApPostMonth: postMonth },
      _buildings: buildings,
    });
    const leasingDay = today - rng.int(settings.minHistoryDays, settings.maxHistoryDays);
    // Construction and set-up bills come in for months before the first move-in.
    const openDay = Math.min(leasingDay - rng.int(90, 240), today - INVOICE_HISTORY_DAYS - rng.int(0, 60));
    const jobs: WorldJob[] = [];
    const jobCount = rng.int(2, 4);
    for (let j = 0; j < jobCount; j++) {
      const t = rng.pick(JOB_TEMPLATES);
      const from = openDay + rng.int(60, Math.max(61, today - openDay + 120));
      const id = String(jobId++);
      jobs.push({
        id,
        name: `${t.name} ${ymd(from).year}`,
        phases: t.phases.map((ph, i) => ({ id: `${id}${i + 1}`, name: ph })),
        gl: GL_ACCOUNTS[t.gl as keyof typeof GL_ACCOUNTS],
        fromDay: from,
        toDay: addMonths(from, rng.int(3, 9)),
      });
    }
    world.push({
      propertyId,
      openDay,
      leasingDay,
      lookupCode,
      lateFeeCents: rng.pick([5000, 7500, 10000]),
      applicationFeeCents: rng.pick([3500, 5000, 7500]),
      adminFeeCents: rng.pick([15000, 20000, 25000, 30000]),
      utilitiesCents: rng.chance(0.35) ? rng.int(45, 95) * 100 : 0,
      exportsInvoices: p % 3 !== 1,
      exportWeekday: 1,
      sendsOtherIncomeFlag: p % 2 === 0,
      vendorIds: pickVendors(rng, vendors),
      jobs,
      bankAccountId: String(8800 + p),
      bankAccountName: `${name} Operating`,
      invoicesPerDay: Math.round(unitCount * 0.0037 * 1000) / 1000,
      rentBaseDay: today,
      lineProperty: { id: String(propertyId), name, lookupCode },
    });
  }
  return { properties, world };
}
