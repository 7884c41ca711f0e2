import { describe, expect, it } from 'vitest';
import { decodeJsonRecognizing } from '../../src/source/codec-json-split.js';
import { decodeJson } from '../../src/source/codec-json.js';
import type { RecordRecognizer } from '../../src/source/types.js';

const RECORDS = ['leases', 'lease'] as const;

/** A reply of the given lease objects, in the source's compact form (as JSON.stringify writes it) or pretty-printed. */
function reply(leases: unknown, pretty = false): string {
  const envelope = {
    response: {
      requestId: 'r-1',
      code: 200,
      result: { leases: { lease: leases }, pagination: { totalCount: 3 } },
    },
  };
  return pretty ? JSON.stringify(envelope, null, 2) : JSON.stringify(envelope);
}

function lease(i: number): Record<string, unknown> {
  return {
    id: 1000 + i,
    propertyName: i % 3 === 0 ? 'Say "hi" {not an object} [nor a list] \\ done' : 'Sunset Gardens',
    isMonthToMonth: i % 2 === 0,
    // A string ending in escaped backslashes: its closing quote comes right after them.
    unitNumber: i % 2 === 1 ? `B\\${'\\'.repeat(i % 4)}` : `A"${'\\'.repeat(i % 3)}`,
    note: null,
    empty: {},
    arTransactions: {
      arTransaction: Array.from({ length: 5 }, (_, t) => ({
        id: i * 100 + t,
        amount: `${t}.50`,
        memo: `Rent ${t} é ✓`,
      })),
    },
  };
}

/** A recognizer holding the records whose digests were seen before (keyed by the text's position). */
function recognizerOf(held: Map<string, string>): RecordRecognizer & { asked: string[][] } {
  const asked: string[][] = [];
  return {
    salt: '1:r1',
    asked,
    lookup: async (digests) => {
      asked.push([...digests]);
      return new Map(
        digests.filter((digest) => held.has(digest)).map((digest) => [digest, held.get(digest)!]),
      );
    },
  };
}

describe('decodeJsonRecognizing (JSON records recognized by their text)', () => {
  it('gives the tree decodeJson gives when it holds none of the records, compact or pretty-printed', async () => {
    for (const pretty of [false, true]) {
      const text = reply(
        Array.from({ length: 50 }, (_, i) => lease(i)),
        pretty,
      );
      const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizerOf(new Map()));
      expect(decoded.tree).toEqual(decodeJson(text));
      expect(decoded.digests).toHaveLength(50);
      expect(new Set(decoded.digests).size).toBe(50);
      expect(decoded.keys!.every((key) => key === undefined)).toBe(true);
    }
  });

  it('passes over the records it holds (same text, same salt), leaving the others decoded in their places', async () => {
    const leases = Array.from({ length: 6 }, (_, i) => lease(i));
    const first = await decodeJsonRecognizing(Buffer.from(reply(leases)), RECORDS, recognizerOf(new Map()));
    const held = new Map([
      [first.digests![1], '1001'],
      [first.digests![4], '1004'],
    ]);
    // The next reply: lease 2 changed; 1 and 4 are as they were.
    leases[2] = { ...leases[2], propertyName: 'Renamed' };
    const text = reply(leases);
    const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizerOf(held));
    expect(decoded.keys).toEqual([undefined, '1001', undefined, undefined, '1004', undefined]);
    const whole = decodeJson(text) as any;
    const list = (decoded.tree as any).response.result.leases.lease;
    expect(list).toHaveLength(6);
    expect(list[1]).toEqual({});
    expect(list[4]).toEqual({});
    for (const i of [0, 2, 3, 5]) expect(list[i]).toEqual(whole.response.result.leases.lease[i]);
    expect(list[2].propertyName).toBe('Renamed');
  });

  it('does not recognize a record under another salt', async () => {
    const text = reply([lease(1), lease(2)]);
    const first = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizerOf(new Map()));
    const other = { ...recognizerOf(new Map([[first.digests![0], '1001']])), salt: '2:r1' };
    const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, other);
    expect(decoded.keys).toEqual([undefined, undefined]);
  });

  it('keeps a single record a record (not a list), as decodeJson does', async () => {
    const text = reply([lease(7)]);
    const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizerOf(new Map()));
    expect(decoded.tree).toEqual(decodeJson(text));
    expect((decoded.tree as any).response.result.leases.lease.id).toBe('1007');
  });

  it('decodes whole, asking nothing, what is not an array of objects at the path: one object, "No records found", an error reply, a duplicated key', async () => {
    const duplicated = reply([lease(1)]).replace('"leases":{', '"leases":{"lease":[],');
    const texts = [
      reply(lease(1)),
      reply('No records found'),
      reply([lease(1), 'text']),
      reply([]),
      JSON.stringify({ response: { requestId: 'r-1', code: 500, error: { code: 500, message: 'boom' } } }),
      duplicated,
    ];
    for (const text of texts) {
      const recognizer = recognizerOf(new Map());
      const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizer);
      expect(decoded.tree).toEqual(decodeJson(text));
      expect(decoded.digests).toBeUndefined();
      expect(recognizer.asked).toEqual([]);
    }
  });

  it('reads keys written with escapes as JSON.parse does', async () => {
    const text = reply([lease(1), lease(2)]).replace('"leases":{"lease"', '"le\\u0061ses":{"lease"');
    const decoded = await decodeJsonRecognizing(Buffer.from(text), RECORDS, recognizerOf(new Map()));
    expect(decoded.tree).toEqual(decodeJson(text));
    expect(decoded.digests).toHaveLength(2);
  });

  it('throws as decodeJson does on a list whose commas or brackets are wrong', async () => {
    const text = reply([lease(1), lease(2), lease(3)]);
    const between = text.indexOf('},{"id":1002');
    const brokenTexts = [
      text.slice(0, between + 1) + text.slice(between + 2), // no comma between two records
      text.slice(0, between + 1) + ',,' + text.slice(between + 2), // two commas
      text.replace('"lease":[{', '"lease":[,{'), // a comma first
      text.replace(']},"pagination"', ',]},"pagination"'), // a comma last
      text.replace(']},"pagination"', '}},"pagination"'), // the list closed by a brace
    ];
    for (const broken of brokenTexts) {
      expect(() => decodeJson(broken)).toThrow(SyntaxError);
      await expect(
        decodeJsonRecognizing(Buffer.from(broken), RECORDS, recognizerOf(new Map())),
      ).rejects.toThrow(SyntaxError);
    }
  });

  it('throws as decodeJson does on text that is not JSON', async () => {
    const text = reply([lease(1), lease(2)]);
    const broken = text.replace('"Rent 1 é ✓"', '"Rent 1 é ✓');
    await expect(
      decodeJsonRecognizing(Buffer.from(broken), RECORDS, recognizerOf(new Map())),
    ).rejects.toThrow(SyntaxError);
    await expect(
      decodeJsonRecognizing(Buffer.from(text.slice(0, text.length / 2)), RECORDS, recognizerOf(new Map())),
    ).rejects.toThrow(SyntaxError);
  });
});
