import { describe, expect, it } from 'vitest';
import { decodeXmlToJson } from '../../src/source/codec-xml-split.js';
import { decodeXml } from '../../src/source/codec-xml.js';

const PATH = ['result', 'leases'] as const;

/** A reply of `count` leases, each with AR transactions, in the source's compact form. */
function reply(count: number, lease: (i: number) => string = (i) => plainLease(i), around = { before: '', after: '' }): string {
  let leases = '';
  for (let i = 0; i < count; i++) leases += lease(i);
  return (
    '<?xml version="1.0" encoding="UTF-8"?><response><requestId>r-1</requestId><code>200</code>' +
    `<result>${around.before}<leases>${leases}</leases>${around.after}<pagination><totalCount>${count}</totalCount></pagination></result></response>`
  );
}

function plainLease(i: number): string {
  let ar = '';
  for (let t = 0; t < 30; t++) ar += `<arTransaction><id>${i * 100 + t}</id><amount>${t}.50</amount><memo>Rent ${t}</memo></arTransaction>`;
  return `<lease><id>${1000 + i}</id><propertyName>Sunset Gardens</propertyName><note></note><arTransactions>${ar}</arTransactions></lease>`;
}

/** What slicing must give: the JSON of the whole document decoded at once. */
const whole = (text: string) => JSON.stringify(decodeXml(text));

describe('decodeXmlToJson (records decoded a slice at a time)', () => {
  it('gives the JSON of the whole document for a page of many records, over many slices', () => {
    const text = reply(400);
    expect(text.length).toBeGreaterThan(1_000_000);
    expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
  });

  it('keeps a single record a record (not a list) and an empty container empty', () => {
    for (const text of [reply(1), reply(0), reply(2)]) expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
    expect(JSON.parse(decodeXmlToJson(reply(1), PATH)).response.result.leases.lease.id).toBe('1000');
  });

  it('reads attributes, character references, CDATA, comments and self-closing records inside records as the whole parse does', () => {
    const text = reply(300, (i) =>
      i % 7 === 0
        ? `<lease status="a&amp;b" n='x>y'><id>${i}</id><name>Jos&#233; O&#x2019;Brien &amp; Sons</name><memo><![CDATA[</lease><b>&amp;]]></memo><!-- </lease> --></lease><lease/>`
        : plainLease(i),
    );
    expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
  });

  it('drops layout white space between records as the whole parse does (pretty-printed replies)', () => {
    const text = reply(200, (i) => `\n    <lease>\n      <id>${i}</id>\n      <name> spaced </name>\n    </lease>`);
    expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
  });

  it('keeps other children of the container in the order they came, lists where repeated', () => {
    const text = reply(150, (i) => (i % 50 === 0 ? `<note>n${i}</note>${plainLease(i)}` : plainLease(i)));
    expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
  });

  it('falls back to the whole parse where slicing cannot be sure (text or CDATA among records, attributes on the container, a DOCTYPE, two containers)', () => {
    const cases = [
      reply(20).replace('<leases>', '<leases>No records found'),
      reply(20).replace('<leases>', '<leases><![CDATA[x]]>'),
      reply(20).replace('<leases>', '<leases count="20">'),
      reply(20).replace('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?><!DOCTYPE response [<!ENTITY co "Acme">]>'),
      reply(20, plainLease, { before: '', after: '<leases><lease><id>9</id></lease></leases>' }),
      reply(20, plainLease, { before: '<x><leases><lease><id>8</id></lease></leases></x>', after: '' }),
      reply(20).replace('<leases>', '<leases/><other>'),
      // fast-xml-parser does not match end tags to start tags; slicing leaves such a reply to it.
      reply(20).replace('</lease>', '</leaze>'),
    ];
    for (const text of cases) expect(decodeXmlToJson(text, PATH)).toBe(whole(text));
  });

  it('fails on a broken or truncated reply as the whole parse does', () => {
    const text = reply(100);
    for (const broken of [text.slice(0, Math.floor(text.length / 2)), text.slice(0, text.indexOf('</leases>')), text.slice(0, text.indexOf('</result>'))]) {
      expect(() => decodeXml(broken)).toThrow();
      expect(() => decodeXmlToJson(broken, PATH)).toThrow();
    }
  });
});
