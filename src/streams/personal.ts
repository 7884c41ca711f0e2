import type { PersonalClass } from '../warehouse/schema.js';

/**
 * Where a stream's source records hold residents' personal data, declared in its manifest. A
 * path names a field by the keys from the record down (`customers.customer.emailAddress`);
 * lists on the way are passed through, whether the source sends one item or several.
 */
export interface PersonalDeclaration {
  /** Fields that hold personal data in every record, with their class. */
  fields: Readonly<Record<string, PersonalClass>>;
  /**
   * Fields that hold personal data only in some records: those whose `field` (at the record's
   * top) is one of `values` (an invoice refunding a resident is addressed to the resident).
   */
  when?: readonly {
    field: string;
    values: readonly string[];
    fields: Readonly<Record<string, PersonalClass>>;
  }[];
  /**
   * Where the `raw` of each child table holding personal data sits in the record
   * (`lease_customers: 'customers.customer'`): `propsync privacy apply` finds its fields there.
   */
  childRaw?: Readonly<Record<string, string>>;
  /** Fields whose names look personal and are not (a property's address, a pet's name), with why. */
  notPersonal: Readonly<Record<string, string>>;
}

/** A path as its keys: `customers.customer.emailAddress` → `['customers', 'customer', 'emailAddress']`. */
export function pathKeys(path: string): string[] {
  return path.split('.');
}

/**
 * Field names that look like residents' personal data: names, e-mail addresses, phones, postal
 * addresses, dates of birth, identity numbers. The conformance suite flags every such field of
 * a stream's recorded replies that its declaration does not place.
 */
const PERSONAL_LOOKING = new RegExp(
  [
    String.raw`^(first|last|middle|full|given|family|display)?_?name(full)?$`,
    String.raw`e-?mail|phone|mobile|fax|street|^address(line)?\d*$|^city$|postal|^zip`,
    String.raw`birth|^dob$|ssn|social|passport|licen[cs]e|tax_?(id|number)|payee`,
  ].join('|'),
  'i',
);

/** Whether a field's name looks like personal data. */
export function looksPersonal(key: string): boolean {
  return PERSONAL_LOOKING.test(key);
}

/** Every path the declaration places: personal in all records, in some, or declared not personal. */
export function declaredPaths(declaration: PersonalDeclaration): Set<string> {
  return new Set([
    ...Object.keys(declaration.fields),
    ...(declaration.when ?? []).flatMap((part) => Object.keys(part.fields)),
    ...Object.keys(declaration.notPersonal),
  ]);
}

/** The personal fields of one record, with their class: those of every record and those its own values call for. */
export function personalFieldsOf(
  declaration: PersonalDeclaration,
  record: unknown,
): Readonly<Record<string, PersonalClass>> {
  if (!declaration.when?.length || record === null || typeof record !== 'object') return declaration.fields;
  let fields = declaration.fields;
  for (const part of declaration.when) {
    const value = (record as Record<string, unknown>)[part.field];
    if ((typeof value === 'string' || typeof value === 'number') && part.values.includes(String(value)))
      fields = { ...fields, ...part.fields };
  }
  return fields;
}
