import { describe, expect, it } from 'vitest';
import { decodeXml } from '../../src/source/codec-xml.js';
import { plainElement } from '../../src/source/xml-plain.js';

/** What the parser reads an element as: the value under its name in a one-element document. */
function parsed(element: string): unknown {
  const doc = decodeXml(`<doc>${element}</doc>`) as { doc: Record<string, unknown> | string };
  return typeof doc.doc === 'string' ? doc.doc : Object.values(doc.doc)[0];
}

const plain = (element: string) => plainElement(element, 0, element.length);

describe('plainElement (a record read without the parser)', () => {
  it('reads plain elements as the parser does: text, empty and self-closing elements, repeated children as lists in order, references', () => {
    const elements = [
      '<lease><id>1</id><name>Sunset Gardens</name><note></note><gone/></lease>',
      '<lease><f>1</f><f>2</f><g>3</g><f>4</f></lease>',
      '<lease><a><b><c>deep</c><c/></b></a><a>x</a></lease>',
      '<lease><d>x &amp; &#233; &#x2019; &lt;&gt;&quot;&apos; &#9;&#10;&#13; &#x1F600; &#160;</d></lease>',
      '<lease><d>&amp;lt; &amp;#65; stays as it is</d></lease>',
      '<lease><c>  </c><d> spaced </d><e>a>b ]]> c</e></lease>',
      '<lease>\n  <id>1</id>\n  <items>\n    <item>1</item>\n    <item>2</item>\n  </items>\n</lease>',
      '<lease>just text</lease>',
      '<lease></lease>',
      '<lease/>',
      '<lease><x.y-z_1>dots</x.y-z_1></lease>',
    ];
    for (const element of elements) {
      expect(plain(element), element).not.toBeUndefined();
      expect(plain(element), element).toEqual(parsed(element));
    }
  });

  it('gives undefined for what only the parser reads: attributes, comments, CDATA, PIs, mixed text, HTML entities, dropped references, CR, reserved or non-ASCII names, broken nesting', () => {
    const elements = [
      '<lease status="a"><id>1</id></lease>',
      '<lease><id a="1">1</id></lease>',
      '<lease ><id>1</id></lease>',
      '<lease><id/ ></lease>',
      '<lease><!-- c --><id>1</id></lease>',
      '<lease><memo><![CDATA[x]]></memo></lease>',
      '<lease><?pi x?><id>1</id></lease>',
      '<lease>text<id>1</id></lease>',
      '<lease><id>1</id>text</lease>',
      '<lease><n>&nbsp;</n></lease>',
      '<lease><n>a & b</n></lease>',
      '<lease><n>&#1;</n></lease>',
      '<lease><n>&#0;x</n></lease>',
      '<lease><n>&#x7F;</n></lease>',
      '<lease><n>&#xD800;</n></lease>',
      '<lease><n>a\r\nb</n></lease>',
      '<lease><constructor>x</constructor></lease>',
      '<lease><hasOwnProperty>1</hasOwnProperty></lease>',
      '<lease><é>1</é></lease>',
      '<lease><ns:id>1</ns:id></lease>',
      '<lease><id>1</di></lease>',
      '<lease><id>1</lease>',
      '<lease><id>1</id>',
      '<lease><id>1</id></lease><extra/>',
    ];
    for (const element of elements) expect(plain(element), element).toBeUndefined();
  });

  it('reads only the span it is given, within a larger text', () => {
    const text = '<leases><lease><id>1</id></lease><lease><id>2</id><f>a</f><f>b</f></lease></leases>';
    const second = text.indexOf('<lease><id>2');
    expect(plainElement(text, second, text.length - '</leases>'.length)).toEqual({ id: '2', f: ['a', 'b'] });
    expect(plainElement(text, 0, second)).toBeUndefined();
  });

  it('agrees with the parser on every element it reads, over many generated ones', () => {
    // Pieces of elements, plain and not, put together at random (seeded): whatever plainElement
    // reads must be what the parser reads.
    let seed = 7;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    const texts = [
      '',
      'x',
      ' ',
      '  a b  ',
      '&amp;',
      '&#233;',
      '&lt;x&gt;',
      '\n',
      '&#10;',
      '$1,234.50',
      '0',
      'true',
      '&quot;q&quot;',
      '\u00e9\u2019',
    ];
    const names = ['a', 'b', 'id', 'item', 'c_1', 'd.e'];
    const element = (depth: number): string => {
      const name = names[random(names.length)];
      const kind = random(depth > 3 ? 2 : 5);
      if (kind === 0) return `<${name}/>`;
      if (kind === 1) return `<${name}>${texts[random(texts.length)]}</${name}>`;
      let inner = '';
      const count = 1 + random(4);
      for (let i = 0; i < count; i++) inner += (random(4) === 0 ? '\n  ' : '') + element(depth + 1);
      return `<${name}>${inner}</${name}>`;
    };
    let read = 0;
    for (let i = 0; i < 2000; i++) {
      const text = `<lease>${element(0)}${element(0)}</lease>`;
      const value = plain(text);
      if (value === undefined) continue;
      read++;
      expect(value, text).toEqual(parsed(text));
    }
    expect(read).toBeGreaterThan(1500);
  });
});
