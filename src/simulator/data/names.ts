/**
 * Word pools for people, places and businesses. All fictional; e-mail domains are the reserved
 * example domains and phone numbers use the 555 exchange.
 */
import type { Rng } from './random.js';

/** Given names. */
export const FIRST_NAMES = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Carlos',
  'Karen',
  'Daniel',
  'Lisa',
  'Matthew',
  'Nancy',
  'Anthony',
  'Betty',
  'Mark',
  'Sandra',
  'Donald',
  'Ashley',
  'Steven',
  'Kimberly',
  'Andrew',
  'Emily',
  'Paul',
  'Donna',
  'Joshua',
  'Michelle',
  'Kenneth',
  'Carol',
  'Kevin',
  'Amanda',
  'Brian',
  'Melissa',
  'Timothy',
  'Deborah',
  'Ronald',
  'Stephanie',
  'Jason',
  'Rebecca',
  'Luis',
  'Sofía',
  'Mateo',
  'Camila',
  'Diego',
  'Valentina',
  'Wei',
  'Mei',
  'Arjun',
  'Priya',
  'Tyler',
  'Hannah',
  'Brandon',
  'Madison',
  'Ethan',
  'Olivia',
  'Noah',
  'Ava',
  'Liam',
  'Chloé',
  'Samuel',
  'Grace',
  'Isaac',
  'Zoë',
  'Gabriel',
  'Lily',
  'Elijah',
  'Nora',
  'Owen',
  'Riley',
] as const;

/** Family names. */
export const LAST_NAMES = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramírez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Chen',
  'Patel',
  'Kim',
  'Nakamura',
  'Okafor',
  'Schmidt',
  'Olsen',
  'Yazzie',
  'Begay',
  'Romero',
  'O’Brien',
  'McAllister',
  'Van Dyke',
  'De la Cruz',
  'Whitehorse',
  'Sandoval',
  'Archuleta',
  'Trujillo',
] as const;

/** Middle initials or names (about a third of people have one). */
export const MIDDLE_NAMES = ['A', 'J', 'M', 'Lee', 'Marie', 'Ann', 'R', 'E', 'Lynn', 'T'] as const;

/** Street names. */
export const STREETS = [
  'Aspen',
  'Cedar',
  'Juniper',
  'Piñon',
  'Spruce',
  'Cottonwood',
  'Sage',
  'Canyon',
  'Mesa',
  'Ridge',
  'Elk',
  'Bighorn',
  'Columbine',
  'Larkspur',
  'Willow',
  'Summit',
  'Timberline',
  'Boulder',
  'Foothills',
  'Prairie',
  'Colfax',
  'Broadway',
  'Lincoln',
  'Federal',
  'Wadsworth',
  'Arapahoe',
  'Quebec',
  'Sheridan',
  'Union',
  'Kipling',
] as const;

/** Street suffixes. */
export const STREET_TYPES = ['St', 'Ave', 'Blvd', 'Dr', 'Way', 'Ct', 'Pkwy', 'Ln', 'Rd', 'Cir'] as const;

/** Cities on Mountain Time, with state and a postal code prefix. */
export const CITIES = [
  { city: 'Denver', state: 'CO', zip: '802' },
  { city: 'Aurora', state: 'CO', zip: '800' },
  { city: 'Lakewood', state: 'CO', zip: '802' },
  { city: 'Colorado Springs', state: 'CO', zip: '809' },
  { city: 'Fort Collins', state: 'CO', zip: '805' },
  { city: 'Boulder', state: 'CO', zip: '803' },
  { city: 'Pueblo', state: 'CO', zip: '810' },
  { city: 'Salt Lake City', state: 'UT', zip: '841' },
  { city: 'Provo', state: 'UT', zip: '846' },
  { city: 'Ogden', state: 'UT', zip: '844' },
  { city: 'Albuquerque', state: 'NM', zip: '871' },
  { city: 'Santa Fe', state: 'NM', zip: '875' },
  { city: 'Boise', state: 'ID', zip: '837' },
  { city: 'Billings', state: 'MT', zip: '591' },
  { city: 'Cheyenne', state: 'WY', zip: '820' },
  { city: 'El Paso', state: 'TX', zip: '799' },
] as const;

/** First words of property marketing names. */
export const PROPERTY_WORDS = [
  'Aspen',
  'Cedar',
  'Summit',
  'Juniper',
  'Willow',
  'Canyon',
  'Meadow',
  'Ridge',
  'Alpine',
  'Sage',
  'Cottonwood',
  'Timber',
  'Granite',
  'Silver',
  'Falcon',
  'Eagle',
  'Prairie',
  'Mesa',
  'Riverwalk',
  'Highland',
  'Copper',
  'Stone',
  'Lakeside',
  'Sunset',
  'Vista',
  'Pine',
  'Red Rock',
  'Bluebird',
  'Foothill',
  'Crestone',
] as const;

/** Last words of property marketing names. */
export const PROPERTY_SUFFIXES = [
  'Apartments',
  'Residences',
  'Flats',
  'Lofts',
  'Commons',
  'Village',
  'Place',
  'Point',
  'Crossing',
  'Heights',
  'Townhomes',
  'at the Park',
  'Station',
  'Terrace',
  'Gardens',
] as const;

/** Pet names. */
export const PET_NAMES = [
  'Bella',
  'Max',
  'Luna',
  'Charlie',
  'Lucy',
  'Cooper',
  'Daisy',
  'Milo',
  'Nala',
  'Rocky',
  'Pepper',
  'Ziggy',
] as const;

/** A street address line like `4821 Juniper Ave`. */
export function streetLine(rng: Rng): string {
  return `${rng.int(100, 9899)} ${rng.pick(STREETS)} ${rng.pick(STREET_TYPES)}`;
}

/** A 555-exchange phone number like `(303) 555-0142`. */
export function phoneNumber(rng: Rng, areaCode: string): string {
  return `(${areaCode}) 555-${String(rng.int(100, 9999)).padStart(4, '0')}`;
}

/** The area code used for a state. */
export function areaCodeFor(state: string): string {
  switch (state) {
    case 'UT':
      return '801';
    case 'NM':
      return '505';
    case 'ID':
      return '208';
    case 'MT':
      return '406';
    case 'WY':
      return '307';
    case 'TX':
      return '915';
    default:
      return '303';
  }
}

/** An e-mail address on a reserved example domain. */
export function emailAddress(first: string, last: string, n: number): string {
  const clean = (s: string): string =>
    s
      .normalize('NFD')
      .toLowerCase()
      .replace(/[^a-z]/g, '');
  const domains = ['example.com', 'example.net', 'example.org'] as const;
  return `${clean(first)}.${clean(last)}${n % 100}@${domains[n % 3]}`;
}
