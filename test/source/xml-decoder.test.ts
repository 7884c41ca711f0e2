import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { decodeXml } from '../../src/source/codec-xml.js';
import { RecognizerFailure, UndecodableReplyError } from '../../src/source/errors.js';
import type { RecordRecognizer } from '../../src/source/types.js';
import { createXmlDecoder, type XmlDecoder } from '../../src/source/xml-decoder.js';

const PATH = ['result', 'leases'] as const;

function reply(count: number): string {
  let leases = '';
  for (let i = 0; i < count; i++) {
    leases += `<lease><id>${i}</id><name>Jos&#233; &amp; Sons</name><arTransactions>${'<arTransaction><amount>1.00</amount></arTransaction>'.repeat(20)}</arTransactions></lease>`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?><response><requestId>r</requestId><code>200</code><result><leases>${leases}</leases></result></response>`;
}

describe('createXmlDecoder', () => {
  let decoder: XmlDecoder | undefined;
  afterEach(async () => {
    await decoder?.close();
    decoder = undefined;
  });

  it('decodes a large reply on a thread to the tree the main thread would make', async () => {
    decoder = createXmlDecoder({ threads: 1 });
    const text = reply(300);
    expect(text.length).toBeGreaterThan(64 * 1024);
    expect((await decoder.decode(Buffer.from(text), PATH)).tree).toEqual(decodeXml(text));
    // Small replies, and any reply after close, are decoded in place.
    expect((await decoder.decode(Buffer.from(reply(2)), PATH)).tree).toEqual(decodeXml(reply(2)));
    await decoder.close();
    expect((await decoder.decode(Buffer.from(text), PATH)).tree).toEqual(decodeXml(text));
  });

  it('moves a reply that fills its buffer to the thread, and copies one that shares its buffer', async () => {
    decoder = createXmlDecoder({ threads: 1 });
    const text = reply(300);
    const owned = Buffer.from(text);
    expect((await decoder.decode(owned, PATH)).tree).toEqual(decodeXml(text));
    expect(owned.byteLength).toBe(0);
    const shared = Buffer.concat([Buffer.from('xx'), Buffer.from(text)]).subarray(2);
    expect((await decoder.decode(shared, PATH)).tree).toEqual(decodeXml(text));
    expect(shared.toString('utf8')).toBe(text);
  });

  it('starts no thread before a large reply, and lets idle threads end', async () => {
    decoder = createXmlDecoder({ threads: 1 });
    await decoder.decode(Buffer.from(reply(2)), PATH);
    expect(decoder.threads()).toBe(0);
    await decoder.decode(Buffer.from(reply(300)), PATH);
    expect(decoder.threads()).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(decoder.threads()).toBe(0);
  }, 20_000);

  it("passes a thread's decoding error on, as the main thread's would be", async () => {
    decoder = createXmlDecoder({ threads: 1, minBytes: 0 });
    await expect(decoder.decode(Buffer.from(reply(50).slice(0, -20)), PATH)).rejects.toThrow(
      /truncated|root element/,
    );
    // The thread is still there for the next reply.
    expect((await decoder.decode(Buffer.from(reply(50)), PATH)).tree).toEqual(decodeXml(reply(50)));
  });

  it('refuses a reply too large for its thread, without taking the process down', async () => {
    decoder = createXmlDecoder({ threads: 1, heapMb: 16 });
    // Records not where the method says: the reply is decoded whole, which needs far more than 16 MB.
    const text = reply(3000);
    const error = await decoder
      .decode(Buffer.from(text), ['result', 'invoices'])
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UndecodableReplyError);
    expect((error as UndecodableReplyError).retryable).toBe(false);
    expect((error as Error).message).toMatch(/lower source\.pageSize/);
    expect((error as Error).message).toContain(`the reply (${Buffer.byteLength(text)} bytes of XML)`);
    // Sliced, the same reply fits.
    expect((await decoder.decode(Buffer.from(text), PATH)).tree).toEqual(decodeXml(text));
  }, 60_000);

  it('fails the decoding, not hangs, when its threads cannot start, and starts them again for the next reply', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'propsync-task-'));
    const task = join(folder, 'task.mjs');
    writeFileSync(task, "throw new Error('the task module is broken');\n");
    try {
      const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
      decoder = createXmlDecoder({
        threads: 1,
        task: { filename: pathToFileURL(task).href, execArgv: ['--import', tsx] },
      });
      const text = reply(300);
      await expect(decoder.decode(Buffer.from(text), PATH)).rejects.toThrow(
        /XML decoding thread failed: the task module is broken/,
      );
      // Mended, the next reply gets new threads.
      writeFileSync(
        task,
        `export { default } from ${JSON.stringify(new URL('../../src/source/xml-decode-task.ts', import.meta.url).href)};\n`,
      );
      expect((await decoder.decode(Buffer.from(text), PATH)).tree).toEqual(decodeXml(text));
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 30_000);

  /** A recognizer holding the digests it learns through `hold`, each as the key it is given. */
  function recognizer() {
    const held = new Map<string, string>();
    const asked: string[][] = [];
    const it: RecordRecognizer & { held: Map<string, string>; asked: string[][]; fail?: string } = {
      salt: 'v1',
      held,
      asked,
      async lookup(digests) {
        asked.push([...digests]);
        if (it.fail) throw new Error(it.fail);
        return new Map(
          digests.flatMap((digest) => (held.has(digest) ? [[digest, held.get(digest)!] as const] : [])),
        );
      },
    };
    return it;
  }

  it.each([
    ['on a thread', 0],
    ['in place', Infinity],
  ])(
    'passes over the records the recognizer holds, %s, giving their keys and every digest',
    async (_where, minBytes) => {
      decoder = createXmlDecoder({ threads: 1, minBytes });
      const known = recognizer();
      const text = reply(300);
      const first = await decoder.decode(Buffer.from(text), PATH, { item: 'lease', recognizer: known });
      expect(first.tree).toEqual(decodeXml(text));
      expect(first.digests).toHaveLength(300);
      expect(first.keys).toEqual(new Array(300).fill(undefined));
      // The caller now holds the even leases.
      first.digests!.forEach((digest, i) => i % 2 === 0 && known.held.set(digest, String(i)));
      const again = await decoder.decode(Buffer.from(text), PATH, { item: 'lease', recognizer: known });
      expect(again.digests).toEqual(first.digests);
      expect(again.keys).toEqual(first.digests!.map((_, i) => (i % 2 === 0 ? String(i) : undefined)));
      const leases = (again.tree as { response: { result: { leases: { lease: unknown[] } } } }).response
        .result.leases.lease;
      const whole = (
        decodeXml(text) as typeof again.tree & { response: { result: { leases: { lease: unknown[] } } } }
      ).response.result.leases.lease;
      expect(leases).toEqual(whole.map((lease, i) => (i % 2 === 0 ? {} : lease)));
      expect(known.asked).toHaveLength(2);
      expect(decoder.threads()).toBe(minBytes === 0 ? 1 : 0);
    },
  );

  it('fails the reply when the recognizer cannot answer, and decodes the next one', async () => {
    decoder = createXmlDecoder({ threads: 1, minBytes: 0 });
    const known = recognizer();
    known.fail = 'warehouse unreachable';
    const failed = await decoder
      .decode(Buffer.from(reply(50)), PATH, { item: 'lease', recognizer: known })
      .catch((error: unknown) => error);
    // The recognizer's own error, kept apart from a fault of the reply (which would be retried).
    expect(failed).toBeInstanceOf(RecognizerFailure);
    expect((failed as RecognizerFailure).cause).toEqual(new Error('warehouse unreachable'));
    known.fail = undefined;
    expect(
      (await decoder.decode(Buffer.from(reply(50)), PATH, { item: 'lease', recognizer: known })).tree,
    ).toEqual(decodeXml(reply(50)));
  });
});
