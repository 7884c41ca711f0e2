import { describe, expect, it } from 'vitest';
import { undeclaredPersonalFields } from './personal-fields.js';

// The check the conformance suite runs over every stream's recorded replies.
describe('undeclaredPersonalFields', () => {
  const declaration = {
    fields: { 'customers.customer.emailAddress': 'email' as const },
    when: [{ field: 'kind', values: ['refund'], fields: { 'payee.name': 'name' as const } }],
    notPersonal: { propertyName: "the property's name" },
  };

  it('names a personal-looking field that is not declared, through lists of one or several items', () => {
    const records = [
      {
        propertyName: 'Oak Court',
        payee: { name: 'Ann Lee' },
        customers: {
          customer: [{ emailAddress: 'a@example.com', phones: { phone: { phoneNumber: '555' } } }],
        },
      },
      { customers: { customer: { emailAddress: 'b@example.com', firstName: 'Bo' } } },
    ];
    expect(undeclaredPersonalFields(declaration, records)).toEqual([
      'customers.customer.firstName',
      'customers.customer.phones.phone.phoneNumber',
    ]);
  });

  it('passes records whose personal-looking fields are all placed', () => {
    expect(
      undeclaredPersonalFields(declaration, [
        { propertyName: 'Oak Court', unitNumber: '4B', customers: { customer: { emailAddress: 'a@x' } } },
      ]),
    ).toEqual([]);
  });
});
