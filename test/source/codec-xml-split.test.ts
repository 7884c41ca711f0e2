import { describe, expect, it } from 'vitest';
import { asciiJson, decodeXmlRecognizing, decodeXmlToJson } from '../../src/source/codec-xml-split.js';
import { decodeXml } from '../../src/source/codec-xml.js';

const PATH = ['result', 'leases'] as const;

/** A reply of `count` leases, each with AR transactions, in the source's compact form. */
function reply(
  count: number,
  lease: (i: number) => string = (i) => plainLease(i),
  around = { before: '', after: '' },
): string {
  let leases = '';
  for (let i = 0; i < count; i++) leases += lease(i);
  return (
    '<?xml version="1.0" encoding="UTF-8"?><response><requestId>r-1</requestId><code>200</code>' +
    `<result>${around.before}<leases>${leases}</leases>${around.after}<pagination><totalCount>${count}</totalCount></pagination></result></response>`
  );
}

function plainLease(i: number): string {
  let ar = '';
  for (let t = 0; t < 30; t++)
    ar += `<arTransaction><id>${i * 100 + t}</id><amount>${t}.50</amount><memo>Rent ${t}</memo></arTransaction>`;
  return `<lease><id>${1000 + i}</id><propertyName>Sunset Gardens</propertyName><note></note><arTransactions>${ar}</arTransactions></lease>`;
}

/** The JSON text of UTF-8 bytes. */
const utf8Text = (json: Uint8Array) => new TextDecoder().decode(json);

/** The sliced decoding's JSON text. */
const toJson = (xml: string, path: readonly string[]) => utf8Text(decodeXmlToJson(Buffer.from(xml), path));

/** What slicing must give: the JSON of the whole document decoded at once, as ASCII. */
const whole = (text: string) => asciiJson(JSON.stringify(decodeXml(text)));

describe('decodeXmlToJson (records decoded a slice at a time)', () => {
  it('gives the JSON of the whole document for a page of many records, over many slices', () => {
    const text = reply(400);
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(toJson(text, PATH)).toBe(whole(text));
  });

  it('keeps a single record a record (not a list) and an empty container empty', () => {
    for (const text of [reply(1), reply(0), reply(2)]) expect(toJson(text, PATH)).toBe(whole(text));
    expect(JSON.parse(toJson(reply(1), PATH)).response.result.leases.lease.id).toBe('1000');
  });

  it('reads attributes, character references, CDATA, comments and self-closing records inside records as the whole parse does', () => {
    const text = reply(300, (i) =>
      i % 7 === 0
        ? `<lease status="a&amp;b" n='x>y'><id>${i}</id><name>Jos&#233; O&#x2019;Brien &amp; Sons</name><memo><![CDATA[</lease><b>&amp;]]></memo><!-- </lease> --></lease><lease/>`
        : i % 7 === 3
          ? `<lease><id>${i}</id><?note </lease>?><memo>a</memo></lease>`
          : plainLease(i),
    );
    expect(toJson(text, PATH)).toBe(whole(text));
  });

  it('reads end tags with space before their >, elements named like the record inside a record, and names that share a prefix', async () => {
    const text = reply(200, (i) =>
      i % 5 === 0
        ? `<lease ><id >${i}</id ><lease><leaseId>${i}</leaseId></lease ><leases>x</leases><leaseX/></lease   >`
        : plainLease(i),
    );
    expect(toJson(text, PATH)).toBe(whole(text));
    expect(JSON.parse(toJson(text, PATH)).response.result.leases.lease).toHaveLength(200);
    // Sliced, not decoded whole: only the sliced path digests the records.
    const recognized = await decodeXmlRecognizing(Buffer.from(text), PATH, {
      item: 'lease',
      salt: 's',
      passOver: async (digests) => digests.map(() => false),
    });
    expect(recognized.digests).toHaveLength(200);
  });

  it('writes JSON longer than the XML it came from (quotes escaped, characters beyond ASCII as escapes)', () => {
    const text = reply(300, (i) => `<lease><id>${i}</id><memo>${'"’\\é😀'.repeat(400)}</memo></lease>`);
    const json = decodeXmlToJson(Buffer.from(text), PATH);
    expect(json.byteLength).toBeGreaterThan(text.length * 2);
    expect(utf8Text(json)).toBe(whole(text));
    // ASCII, so that the thread parsing it reads one-byte text; the same values once parsed.
    expect(json.every((byte) => byte < 0x80)).toBe(true);
    expect(JSON.parse(utf8Text(json))).toEqual(decodeXml(text));
  });

  it('drops layout white space between records as the whole parse does (pretty-printed replies)', () => {
    const text = reply(
      200,
      (i) => `\n    <lease>\n      <id>${i}</id>\n      <name> spaced </name>\n    </lease>`,
    );
    expect(toJson(text, PATH)).toBe(whole(text));
  });

  it('keeps other children of the container in the order they came, lists where repeated', () => {
    const text = reply(150, (i) => (i % 50 === 0 ? `<note>n${i}</note>${plainLease(i)}` : plainLease(i)));
    expect(toJson(text, PATH)).toBe(whole(text));
  });

  it('falls back to the whole parse where slicing cannot be sure (text or CDATA among records, attributes on the container, a DOCTYPE, two containers)', () => {
    const cases = [
      reply(20).replace('<leases>', '<leases>No records found'),
      reply(20).replace('<leases>', '<leases><![CDATA[x]]>'),
      reply(20).replace('<leases>', '<leases count="20">'),
      reply(20).replace(
        '<?xml version="1.0" encoding="UTF-8"?>',
        '<?xml version="1.0"?><!DOCTYPE response [<!ENTITY co "Acme">]>',
      ),
      reply(20, plainLease, { before: '', after: '<leases><lease><id>9</id></lease></leases>' }),
      reply(20, plainLease, { before: '<x><leases><lease><id>8</id></lease></leases></x>', after: '' }),
      reply(20).replace('<leases>', '<leases/><other>'),
      // fast-xml-parser does not match end tags to start tags; slicing leaves such a reply to it.
      reply(20).replace('</lease>', '</leaze>'),
    ];
    for (const text of cases) expect(toJson(text, PATH)).toBe(whole(text));
  });

  it('fails on a broken or truncated reply as the whole parse does', () => {
    const text = reply(100);
    for (const broken of [
      text.slice(0, Math.floor(text.length / 2)),
      text.slice(0, text.indexOf('</leases>')),
      text.slice(0, text.indexOf('</result>')),
    ]) {
      expect(() => decodeXml(broken)).toThrow();
      expect(() => toJson(broken, PATH)).toThrow();
    }
  });
});

describe('decodeXmlRecognizing (records the caller holds are passed over undecoded)', () => {
  const item = 'lease';
  /** Recognizes with a fixed answer, noting the digests it was asked about. */
  function recognizing(text: string, salt: string, answer: (digests: string[]) => boolean[]) {
    const asked: string[][] = [];
    const result = decodeXmlRecognizing(Buffer.from(text), PATH, {
      item,
      salt,
      passOver: async (digests) => {
        asked.push(digests);
        return answer(digests);
      },
    });
    return { result, asked };
  }

  it('digests each record once, in order, the same for the same text and salt and different otherwise', async () => {
    const text = reply(120, (i) => (i % 40 === 0 ? `<note>n${i}</note>${plainLease(i)}` : plainLease(i)));
    const first = recognizing(text, 's1', (digests) => digests.map(() => false));
    const decoded = await first.result;
    // Asked once, about the 120 leases (not the notes); nothing passed over: the very JSON of the whole parse.
    expect(first.asked).toHaveLength(1);
    expect(decoded.digests).toHaveLength(120);
    expect(new Set(decoded.digests).size).toBe(120);
    expect(utf8Text(decoded.json)).toBe(whole(text));
    expect((await recognizing(text, 's1', (d) => d.map(() => false)).result).digests).toEqual(
      decoded.digests,
    );
    // Another salt (another normalization or method version) gives other digests.
    const salted = (await recognizing(text, 's2', (d) => d.map(() => false)).result).digests!;
    expect(salted.some((digest) => decoded.digests!.includes(digest))).toBe(false);
    // One lease changed by one character: only its digest changes.
    const changed = (
      await recognizing(text.replace('<id>1007</id>', '<id>1070</id>'), 's1', (d) => d.map(() => false))
        .result
    ).digests!;
    expect(changed.filter((digest, i) => digest !== decoded.digests![i])).toHaveLength(1);
    expect(changed[7]).not.toBe(decoded.digests![7]);
  });

  it('leaves the records answered as held out of the JSON, as {} in their place, and decodes the rest as the whole parse does', async () => {
    const text = reply(300);
    const held = (i: number) => i % 3 !== 1;
    const { result } = recognizing(text, 's', (digests) => digests.map((_, i) => held(i)));
    const decoded = await result;
    expect(decoded.digests).toHaveLength(300);
    const tree = JSON.parse(utf8Text(decoded.json)) as {
      response: { result: { leases: { lease: unknown[] } } };
    };
    const expected = JSON.parse(whole(text)) as typeof tree;
    expected.response.result.leases.lease = expected.response.result.leases.lease.map((lease, i) =>
      held(i) ? {} : lease,
    );
    expect(tree).toEqual(expected);
    expect(utf8Text(decoded.json).length).toBeLessThan(whole(text).length / 2);
  });

  it('asks nothing of a reply it decodes whole, or of one without records', async () => {
    for (const text of [
      reply(20).replace('<leases>', '<leases><![CDATA[x]]>'),
      reply(0),
      reply(5).replace(/<\/?leases>/g, ''),
    ]) {
      const { result, asked } = recognizing(text, 's', (digests) => digests.map(() => true));
      const decoded = await result;
      expect(utf8Text(decoded.json)).toBe(whole(text));
      expect(decoded.digests).toBeUndefined();
      expect(asked.flat()).toEqual([]);
    }
  });

  it('fails when the caller cannot answer, as a broken reply fails', async () => {
    const failing = decodeXmlRecognizing(Buffer.from(reply(10)), PATH, {
      item,
      salt: 's',
      passOver: async () => Promise.reject(new Error('warehouse unreachable')),
    });
    await expect(failing).rejects.toThrow('warehouse unreachable');
    await expect(
      recognizing(reply(100).slice(0, 5000), 's', (d) => d.map(() => true)).result,
    ).rejects.toThrow();
  });
});
