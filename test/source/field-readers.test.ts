import { describe, expect, it } from 'vitest';
import { RecordError } from '../../src/source/errors.js';
import {
  asBoolean,
  asDate,
  asDateTime,
  asId,
  asInt,
  asList,
  asMoney,
  asPostMonth,
  asText,
  required,
} from '../../src/source/field-readers.js';

function recordErrorOf(fn: () => unknown): RecordError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(RecordError);
    return error as RecordError;
  }
  throw new Error('expected a RecordError');
}

describe('asList', () => {
  it('reads every shape of a list', () => {
    expect(asList(undefined)).toEqual([]);
    expect(asList(null)).toEqual([]);
    expect(asList('')).toEqual([]);
    expect(asList('No records found with mentioned preferences.')).toEqual([]);
    expect(asList('no records found.')).toEqual([]);
    expect(asList({ id: '1' })).toEqual([{ id: '1' }]);
    const list = [{ id: '1' }, { id: '2' }];
    expect(asList(list)).toBe(list);
    expect(asList('42')).toEqual(['42']);
  });
});

describe('asBoolean', () => {
  it('reads every spelling the source uses', () => {
    for (const yes of [1, '1', 't', 'T', 'true', 'True', true]) expect(asBoolean(yes, 'f')).toBe(true);
    for (const no of [0, '0', 'f', 'F', 'false', 'FALSE', false]) expect(asBoolean(no, 'f')).toBe(false);
    for (const absent of [undefined, null, '']) expect(asBoolean(absent, 'f')).toBeNull();
  });
  it('names the field and the value when it cannot', () => {
    const error = recordErrorOf(() => asBoolean('yes', 'isPosted'));
    expect(error.field).toBe('isPosted');
    expect(error.value).toBe('yes');
    expect(error.message).toContain('isPosted');
    expect(error.message).toContain('"yes"');
    recordErrorOf(() => asBoolean(2, 'x'));
    recordErrorOf(() => asBoolean({}, 'x'));
  });
});

describe('asDate', () => {
  it('turns MM/DD/YYYY into YYYY-MM-DD', () => {
    expect(asDate('07/04/2024', 'moveInDate')).toBe('2024-07-04');
    expect(asDate('2/29/2024', 'moveInDate')).toBe('2024-02-29');
    expect(asDate('2024-03-01', 'moveInDate')).toBe('2024-03-01');
    expect(asDate(undefined, 'moveOutDate')).toBeNull();
    expect(asDate('', 'moveOutDate')).toBeNull();
    expect(asDate(' 1/2/0001 ', 'moveInDate')).toBe('0001-01-02');
    expect(asDate('12/31/9999', 'moveInDate')).toBe('9999-12-31');
    expect(asDate('02/29/2000', 'moveInDate')).toBe('2000-02-29');
    expect(asDate(' 0999-12-31', 'moveInDate')).toBe('0999-12-31');
  });
  it('checks the calendar', () => {
    const bad = [
      '02/30/2024',
      '02/29/2023',
      '02/29/1900',
      '13/01/2024',
      '00/10/2024',
      '04/31/2024',
      '01/15/0000',
      '0000-01-15',
      '2024/01/01',
    ];
    const shapes = [
      '001/01/2024',
      '01/001/2024',
      '1/1/24',
      '1/1/02024',
      '/1/2024',
      '1//2024',
      '1/1/2024/',
      '1-1-2024',
      '2024-1-01',
      '2024-01-1',
      '2024-01-01T00:00',
      '２/1/2024',
    ];
    for (const text of [...bad, ...shapes, 'soon', 20240101]) {
      expect(recordErrorOf(() => asDate(text, 'moveInDate')).field).toBe('moveInDate');
    }
  });
});

describe('asDateTime', () => {
  it('keeps the offset the abbreviation names', () => {
    expect(asDateTime('07/01/2024 09:30:00 MDT', 'at')).toBe('2024-07-01T09:30:00-06:00');
    expect(asDateTime('01/15/2024 23:05:09.123456 MST', 'at')).toBe('2024-01-15T23:05:09.123456-07:00');
    // The repeated hour of the autumn change: the abbreviation settles which one.
    expect(asDateTime('11/03/2024 01:30:00 MDT', 'at')).toBe('2024-11-03T01:30:00-06:00');
    expect(asDateTime('11/03/2024 01:30:00 MST', 'at')).toBe('2024-11-03T01:30:00-07:00');
    expect(new Date(asDateTime('11/03/2024 01:30:00 MST', 'at')!).toISOString()).toBe(
      '2024-11-03T08:30:00.000Z',
    );
  });
  it('reads a wall time without abbreviation in America/Denver', () => {
    expect(asDateTime('03/10/2024 01:59:00', 'at')).toBe('2024-03-10T01:59:00-07:00');
    expect(asDateTime('03/10/2024 03:00:00', 'at')).toBe('2024-03-10T03:00:00-06:00');
    expect(asDateTime('11/03/2024 02:00:00', 'at')).toBe('2024-11-03T02:00:00-07:00');
    expect(asDateTime('12/31/2024 12:00:00', 'at')).toBe('2024-12-31T12:00:00-07:00');
  });
  it('rejects what is not a datetime', () => {
    for (const bad of [
      '07/01/2024 25:00:00 MDT',
      '02/30/2024 10:00:00 MST',
      '07/01/2024 10:00:00 PST',
      '2024-07-01T10:00:00Z',
      'x',
    ]) {
      expect(recordErrorOf(() => asDateTime(bad, 'intervalDateTime')).field).toBe('intervalDateTime');
    }
    expect(asDateTime(null, 'at')).toBeNull();
  });
});

describe('asPostMonth', () => {
  it('reads both forms', () => {
    expect(asPostMonth('03/01/2024', 'postMonth')).toBe('2024-03-01');
    expect(asPostMonth('3/2024', 'postMonth')).toBe('2024-03-01');
    expect(asPostMonth('12/2023', 'postMonth')).toBe('2023-12-01');
    expect(asPostMonth(undefined, 'postMonth')).toBeNull();
  });
  it('rejects other days and months', () => {
    for (const bad of ['03/15/2024', '13/2024', '00/01/2024', '2024-03'])
      recordErrorOf(() => asPostMonth(bad, 'postMonth'));
  });
});

describe('asMoney', () => {
  it('keeps the digits exactly', () => {
    expect(asMoney('1470.00', 'amount')).toBe('1470.00');
    expect(asMoney('0.10', 'amount')).toBe('0.10');
    expect(asMoney('-12.5', 'amount')).toBe('-12.5');
    expect(asMoney('12345678901234567890.123456789', 'amount')).toBe('12345678901234567890.123456789');
    expect(asMoney('007.50', 'amount')).toBe('7.50');
    expect(asMoney('.5', 'amount')).toBe('0.5');
    expect(asMoney('-.5', 'amount')).toBe('-0.5');
    expect(asMoney('+12.', 'amount')).toBe('12');
    expect(asMoney('000', 'amount')).toBe('0');
    expect(asMoney('-000.000', 'amount')).toBe('0.000');
    expect(asMoney('0100', 'amount')).toBe('100');
    expect(asMoney(' 12.50 ', 'amount')).toBe('12.50');
  });
  it('reads dollars and both places of the sign', () => {
    expect(asMoney('$-2500.00', 'amount')).toBe('-2500.00');
    expect(asMoney('-$2500.00', 'amount')).toBe('-2500.00');
    expect(asMoney('$2,500.00', 'amount')).toBe('2500.00');
    expect(asMoney('$0.00', 'amount')).toBe('0.00');
    expect(asMoney('-0.00', 'amount')).toBe('0.00');
    expect(asMoney('- $ 1,234,567.8', 'amount')).toBe('-1234567.8');
    expect(asMoney('$+5', 'amount')).toBe('5');
  });
  it('reads JSON numbers given as their text, exponent included', () => {
    expect(asMoney('1470.5', 'amount')).toBe('1470.5');
    expect(asMoney(-25.75, 'amount')).toBe('-25.75');
    expect(asMoney(-0, 'amount')).toBe('0');
    expect(asMoney(1e21, 'amount')).toBe('1000000000000000000000');
    expect(asMoney('1e3', 'amount')).toBe('1000');
    expect(asMoney('1.5e-7', 'amount')).toBe('0.00000015');
    expect(asMoney('12.345e1', 'amount')).toBe('123.45');
  });
  it('rejects what is not money', () => {
    for (const bad of [
      '$',
      '-',
      '.',
      '-.',
      '+',
      'abc',
      '1.2.3',
      '--5',
      '-$-5',
      '+-5',
      '12 USD',
      '1,23',
      '1e41',
      true,
      {},
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ]) {
      expect(recordErrorOf(() => asMoney(bad, 'amount')).field).toBe('amount');
    }
    expect(asMoney('', 'amount')).toBeNull();
  });
});

describe('asId, asInt, asText, required', () => {
  it('reads ids from digits or integers', () => {
    expect(asId('100001', 'id')).toBe(100001);
    expect(asId(42, 'id')).toBe(42);
    expect(asId(' 7 ', 'id')).toBe(7);
    expect(asId('007', 'id')).toBe(7);
    expect(asId(-0, 'id')).toBe(0);
    expect(Object.is(asId(-0, 'id'), -0)).toBe(false);
    expect(asId(Number.MAX_SAFE_INTEGER, 'id')).toBe(Number.MAX_SAFE_INTEGER);
    expect(asId('9007199254740991', 'id')).toBe(Number.MAX_SAFE_INTEGER);
    expect(recordErrorOf(() => asId('9007199254740992', 'id')).message).toContain('within range');
    expect(recordErrorOf(() => asId(2 ** 53, 'id')).message).toContain('within range');
    expect(asId(undefined, 'id')).toBeNull();
    for (const bad of [
      '12a',
      '-1',
      '+1',
      '1 2',
      '١٢',
      1.5,
      -3,
      '1e3',
      '99999999999999999',
      Number.POSITIVE_INFINITY,
      true,
      {},
    ])
      expect(recordErrorOf(() => asId(bad, 'customerId')).field).toBe('customerId');
  });
  it('reads integers with a sign', () => {
    expect(asInt('-3', 'n')).toBe(-3);
    expect(asInt(5, 'n')).toBe(5);
    expect(asInt('', 'n')).toBeNull();
    for (const bad of ['1.0', 'x', 2.5]) recordErrorOf(() => asInt(bad, 'n'));
  });
  it('reads text as sent', () => {
    expect(asText(' Apt 4 ', 't')).toBe(' Apt 4 ');
    expect(asText(12, 't')).toBe('12');
    expect(asText('', 't')).toBeNull();
    recordErrorOf(() => asText({ a: '1' }, 'name'));
  });
  it('required throws on null only', () => {
    expect(required(0, 'x')).toBe(0);
    expect(recordErrorOf(() => required(null, 'leaseId')).field).toBe('leaseId');
  });
});
