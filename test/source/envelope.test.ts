import { describe, expect, it } from 'vitest';
import { buildEnvelope, CONTENT_TYPES, escapeXml } from '../../src/source/envelope.js';
import { BadParameterError } from '../../src/source/errors.js';
import { encodeParams } from '../../src/source/params.js';
import { GET_INVOICES } from '../../src/streams/invoices/manifest.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';
import { GET_PROPERTIES } from '../../src/streams/properties/manifest.js';
import { decodeXml } from '../../src/source/codec-xml.js';

function badParameter(fn: () => unknown): BadParameterError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(BadParameterError);
    return error as BadParameterError;
  }
  throw new Error('expected a BadParameterError');
}

describe('encodeParams', () => {
  it('encodes dates, booleans and id lists', () => {
    const params = encodeParams(
      GET_LEASES,
      'r2',
      {
        propertyId: 100001,
        leaseStatusTypeIds: [4, '5', 6],
        moveInDateFrom: '2024-01-31',
        // 05:00 UTC on 1 March is still 29 February in Denver (UTC-7).
        moveInDateTo: new Date('2024-03-01T05:00:00Z'),
        moveOutDateFrom: '12/01/2023',
        includeArTransactions: true,
        includeLeaseHistory: false,
        residentFriendlyMode: 1,
        unitNumber: 'A-101',
        applicationId: undefined,
      },
      'America/Denver',
    );
    expect(params).toEqual({
      propertyId: '100001',
      leaseStatusTypeIds: '4,5,6',
      unitNumber: 'A-101',
      moveInDateFrom: '01/31/2024',
      moveInDateTo: '02/29/2024',
      moveOutDateFrom: '12/01/2023',
      residentFriendlyMode: '1',
      includeLeaseHistory: '0',
      includeArTransactions: '1',
    });
  });
  it('tolerates comma strings with spaces for id lists', () => {
    expect(encodeParams(GET_INVOICES, 'r2', { propertyIds: '1, 2,3' }, 'America/Denver')).toEqual({
      propertyIds: '1,2,3',
    });
  });
  it('reads post months in every form', () => {
    for (const value of ['2024-03', '2024-03-01', '03/2024', '03/01/2024']) {
      expect(encodeParams(GET_INVOICES, 'r2', { postMonth: value }, 'America/Denver')).toEqual({
        postMonth: '03/2024',
      });
    }
  });
  it('translates the vendor filter between versions', () => {
    expect(encodeParams(GET_INVOICES, 'r1', { vendorIds: [12] }, 'America/Denver')).toEqual({
      vendorId: '12',
    });
    expect(encodeParams(GET_INVOICES, 'r2', { vendorId: 12 }, 'America/Denver')).toEqual({ vendorIds: '12' });
    expect(
      badParameter(() => encodeParams(GET_INVOICES, 'r1', { vendorIds: [1, 2] }, 'America/Denver')).parameter,
    ).toBe('vendorIds');
  });
  it('rejects unknown and malformed parameters, naming them', () => {
    expect(badParameter(() => encodeParams(GET_LEASES, 'r2', {}, 'America/Denver')).parameter).toBe(
      'propertyId',
    );
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', propertyID: '2' }, 'America/Denver'),
      ).parameter,
    ).toBe('propertyID');
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', moveInDateFrom: '2024-02-30' }, 'America/Denver'),
      ).parameter,
    ).toBe('moveInDateFrom');
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', moveInDateFrom: new Date('x') }, 'America/Denver'),
      ).parameter,
    ).toBe('moveInDateFrom');
    expect(
      badParameter(() => encodeParams(GET_LEASES, 'r2', { propertyId: 'abc' }, 'America/Denver')).parameter,
    ).toBe('propertyId');
    expect(
      badParameter(() => encodeParams(GET_LEASES, 'r2', { propertyId: -1 }, 'America/Denver')).parameter,
    ).toBe('propertyId');
    expect(
      badParameter(() => encodeParams(GET_LEASES, 'r2', { propertyId: '1', leaseIds: [] }, 'America/Denver'))
        .parameter,
    ).toBe('leaseIds');
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', leaseIds: ['1', 'x'] }, 'America/Denver'),
      ).parameter,
    ).toBe('leaseIds');
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', includeArTransactions: 'yes' }, 'America/Denver'),
      ).parameter,
    ).toBe('includeArTransactions');
    expect(
      badParameter(() =>
        encodeParams(GET_LEASES, 'r2', { propertyId: '1', unitNumber: '' }, 'America/Denver'),
      ).parameter,
    ).toBe('unitNumber');
    expect(
      badParameter(() => encodeParams(GET_INVOICES, 'r2', { postMonth: '2024-13' }, 'America/Denver'))
        .parameter,
    ).toBe('postMonth');
    const error = badParameter(() =>
      encodeParams(GET_PROPERTIES, 'r1', { propertyId: '1' }, 'America/Denver'),
    );
    expect(error.message).toContain('getProperties');
    expect(error.message).toContain('propertyIds');
    expect(error.method).toBe('getProperties');
  });
});

describe('buildEnvelope', () => {
  it('builds the JSON envelope', () => {
    const envelope = buildEnvelope('json', {
      method: GET_LEASES,
      version: 'r2',
      requestId: '15',
      params: { propertyId: '100001', includeArTransactions: true },
      timeZone: 'America/Denver',
    });
    expect(envelope.contentType).toBe(CONTENT_TYPES.json);
    expect(JSON.parse(envelope.text)).toEqual({
      auth: { type: 'basic' },
      requestId: '15',
      method: {
        name: 'getLeases',
        version: 'r2',
        params: { propertyId: '100001', includeArTransactions: '1' },
      },
    });
  });
  it('builds the XML envelope with the same content, escaped', () => {
    const envelope = buildEnvelope('xml', {
      method: GET_LEASES,
      version: 'r1',
      requestId: 'a&b',
      params: { propertyId: 1, buildingName: 'Oak <North> & "South"' },
      timeZone: 'America/Denver',
    });
    expect(envelope.contentType).toBe('application/xml; CHARSET=UTF-8');
    expect(envelope.text.startsWith('<?xml version="1.0" encoding="UTF-8"?><request>')).toBe(true);
    expect(decodeXml(envelope.text)).toEqual({
      request: {
        auth: { type: 'basic' },
        requestId: 'a&b',
        method: {
          name: 'getLeases',
          version: 'r1',
          params: { propertyId: '1', buildingName: 'Oak <North> & "South"' },
        },
      },
    });
    expect(escapeXml(`<'&">`)).toBe('&lt;&apos;&amp;&quot;&gt;');
  });
  it('rejects before building', () => {
    badParameter(() =>
      buildEnvelope('json', {
        method: GET_INVOICES,
        version: 'r2',
        requestId: '1',
        params: { vendorID: '1' },
        timeZone: 'America/Denver',
      }),
    );
  });
});
