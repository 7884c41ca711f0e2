import { describe, expect, it } from 'vitest';
import { checkRow, textProblem } from '../../src/warehouse/column-domains.js';
import {
  bigint,
  bigintArray,
  date,
  defineSourceTable,
  jsonb,
  money,
  numeric,
  smallint,
  text,
  timestamptz,
} from '../../src/warehouse/schema.js';

const TABLE = defineSourceTable({
  name: 'checked',
  meaning: 'A table of every checked type.',
  key: ['id'],
  columns: {
    id: bigint('Key.').notNull(),
    small: smallint('A smallint.'),
    label: text('Text.'),
    day: date('A date.'),
    at: timestamptz('A timestamp.'),
    amount: money('Money.'),
    rate: numeric('A numeric.'),
    doc: jsonb('A document.'),
    ids: bigintArray('Ids.'),
  },
});

/** A valid row with `changes` applied. */
const row = (changes: Record<string, unknown> = {}) => ({ id: 1, raw: { id: '1' }, ...changes });

describe('checkRow', () => {
  it('accepts values every column holds, and nulls where allowed', () => {
    expect(checkRow(TABLE, row())).toBeUndefined();
    const full = {
      small: -32768,
      label: 'ok \uD83D\uDE00',
      day: '2024-02-29',
      at: '294276-12-31T23:59:59Z',
      amount: '-999999999999.990',
      rate: '00012.5000',
      doc: { a: ['x', 1] },
      ids: [1, '2'],
    };
    expect(checkRow(TABLE, row(full))).toBeUndefined();
    expect(checkRow(TABLE, row({ at: new Date(0), amount: 12.5 }))).toBeUndefined();
  });

  it('names the column, the value and what the column holds', () => {
    expect(checkRow(TABLE, row({ id: null }))).toEqual({
      column: 'id',
      value: null,
      expected: 'present (the column is not null)',
    });
    expect(checkRow(TABLE, row({ raw: undefined }))).toEqual({
      column: 'raw',
      value: undefined,
      expected: 'present (the column is not null)',
    });
    expect(checkRow(TABLE, row({ small: 32768 }))).toEqual({
      column: 'small',
      value: 32768,
      expected: 'a smallint (-32768 to 32767)',
    });
    expect(checkRow(TABLE, row({ id: 2 ** 53 }))).toEqual({
      column: 'id',
      value: 2 ** 53,
      expected:
        'a bigint (-9223372036854775808 to 9223372036854775807) held exactly (at most 9007199254740991 in magnitude)',
    });
    expect(checkRow(TABLE, row({ id: 2n ** 63n }))).toEqual({
      column: 'id',
      value: '9223372036854775808',
      expected: 'a bigint (-9223372036854775808 to 9223372036854775807)',
    });
    expect(checkRow(TABLE, row({ label: 'a\u0000b' }))?.expected).toBe(
      'text without NUL characters (Postgres text cannot hold U+0000)',
    );
    expect(checkRow(TABLE, row({ label: 7 }))).toEqual({ column: 'label', value: 7, expected: 'text' });
    for (const day of [
      '2023-02-29',
      '0000-01-01',
      '2024-13-01',
      '2024-01-01x',
      '24-01-01',
      '12345678-01-01',
    ]) {
      expect(checkRow(TABLE, row({ day }))).toEqual({
        column: 'day',
        value: day,
        expected: 'a date between years 1 and 5874897',
      });
    }
    expect(checkRow(TABLE, row({ at: new Date(Number.NaN) }))?.expected).toBe('a timestamp');
    expect(checkRow(TABLE, row({ at: '294277-01-01' }))?.expected).toBe(
      'a timestamp between years 1 and 294276',
    );
    for (const amount of ['1234567890123.00', '1.005', '1.', '.5', '1e3', '+1', ' 1']) {
      expect(checkRow(TABLE, row({ amount }))).toEqual({
        column: 'amount',
        value: amount,
        expected: 'a numeric(14,2) (at most 12 digits before the point and 2 after)',
      });
    }
    expect(checkRow(TABLE, row({ rate: Number.NaN }))?.expected).toBe(
      'a numeric (at most 131072 digits before the point and 16383 after)',
    );
    expect(checkRow(TABLE, row({ ids: [1, null] }))).toEqual({
      column: 'ids',
      value: null,
      expected: 'a bigint (-9223372036854775808 to 9223372036854775807)',
    });
    expect(checkRow(TABLE, row({ ids: 1 }))).toEqual({ column: 'ids', value: 1, expected: 'bigint[]' });
  });

  it('says where in a jsonb tree the offending text sits', () => {
    expect(checkRow(TABLE, row({ raw: { a: { b: ['ok', 'x\uD800'] } } }))).toEqual({
      column: 'raw',
      path: 'a.b[1]',
      value: 'x\uD800',
      expected: 'valid Unicode text (it holds a lone UTF-16 surrogate)',
    });
    expect(checkRow(TABLE, row({ doc: { 'k\u0000': '1' } }))).toEqual({
      column: 'doc',
      path: 'k\u0000',
      value: 'k\u0000',
      expected: 'a field name of text without NUL characters (Postgres text cannot hold U+0000)',
    });
    expect(checkRow(TABLE, row({ doc: [1, Infinity] }))).toEqual({
      column: 'doc',
      path: '[1]',
      value: Infinity,
      expected: 'a finite number',
    });
  });
});

describe('textProblem', () => {
  it('refuses NUL and lone surrogates only', () => {
    expect(textProblem('\uD83D\uDE00 and \u00e9')).toBeUndefined();
    expect(textProblem('\uDE00\uD83D')).toBe('valid Unicode text (it holds a lone UTF-16 surrogate)');
    expect(textProblem('end \uD83D')).toBe('valid Unicode text (it holds a lone UTF-16 surrogate)');
    expect(textProblem('\uD800\u0000')).toBe(
      'text without NUL characters (Postgres text cannot hold U+0000)',
    );
  });
});
