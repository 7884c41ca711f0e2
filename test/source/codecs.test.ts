import { describe, expect, it } from 'vitest';
import { decodeJson } from '../../src/source/codec-json.js';
import { decodeXml } from '../../src/source/codec-xml.js';

describe('decodeJson', () => {
  it('makes every leaf a string and folds what XML cannot say', () => {
    const tree = decodeJson(
      '{"a":[1],"b":[],"c":null,"d":{},"e":[true,false,[1,2]],"f":1.5,"g":"007","h":{"x":[null,{"y":0}]},"i":12345678901}',
    );
    expect(tree).toEqual({
      a: '1',
      d: '',
      e: ['true', 'false', '1', '2'],
      f: '1.5',
      g: '007',
      h: { x: { y: '0' } },
      i: '12345678901',
    });
  });
  it('throws on broken text', () => {
    expect(() => decodeJson('{"response": {"code": 200')).toThrow(SyntaxError);
  });
});

describe('decodeXml', () => {
  it('keeps text as text, attributes under @attributes', () => {
    const tree = decodeXml(
      '<?xml version="1.0"?><response><requestId>007</requestId><code>200</code>' +
        '<result><leases><lease id="9"><name> A &amp; B </name><empty/><n>1.50</n></lease></leases></result></response>',
    );
    expect(tree).toEqual({
      response: {
        requestId: '007',
        code: '200',
        result: { leases: { lease: { '@attributes': { id: '9' }, name: ' A & B ', empty: '', n: '1.50' } } },
      },
    });
  });
  it('ignores the layout of a pretty-printed document', () => {
    const tree = decodeXml(
      '<response>\n  <a>\n    <b>1</b>\n    <b>2</b>\n  </a>\n  <c> </c>\n</response>\n',
    );
    expect(tree).toEqual({ response: { a: { b: ['1', '2'] }, c: ' ' } });
  });
  it('equals the JSON tree of the same data', () => {
    const json =
      '{"response":{"requestId":"1","code":200,"result":{"leases":{"lease":[{"id":"1","isMonthToMonth":0,"customers":{"customer":[{"id":5}]},"@attributes":{"v":"2"}},{"id":"2","amount":-12.5,"flag":true}]}}}}';
    const xml =
      '<response><requestId>1</requestId><code>200</code><result><leases><lease v="2"><id>1</id><isMonthToMonth>0</isMonthToMonth><customers><customer><id>5</id></customer></customers></lease><lease><id>2</id><amount>-12.5</amount><flag>true</flag></lease></leases></result></response>';
    expect(decodeXml(xml)).toEqual(decodeJson(json));
  });
  it('decodes numeric character references to the characters they name, as JSON reads them', () => {
    const xml =
      '<response><a>Jos&#233; O&#x2019;Brien &amp; Pi&#xF1;on &#x1F3E0;</a><b k="&#233;">t</b><c>raw\u0000nul</c></response>';
    const json =
      '{"response":{"a":"Jos\\u00e9 O\u2019Brien & Pi\u00f1on \ud83c\udfe0","b":{"#text":"t","@attributes":{"k":"\u00e9"}},"c":"raw\\u0000nul"}}';
    expect(decodeXml(xml)).toEqual(decodeJson(json));
    expect(decodeXml(xml)).toEqual({
      response: {
        a: 'José O’Brien & Piñon 🏠',
        b: { '#text': 't', '@attributes': { k: 'é' } },
        c: 'raw\u0000nul',
      },
    });
  });
  it('rejects truncated documents', () => {
    expect(() => decodeXml('<response><result><leases><lease><id>1</id></lease><lease><id>2</i')).toThrow();
    expect(() => decodeXml('<response><result><leases><lease><id>1</id></lease>')).toThrow(/truncated/);
    expect(() => decodeXml('<response><a/>')).toThrow(/truncated/);
    expect(decodeXml('<response/>')).toEqual({ response: '' });
  });
});
