import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReplyBuffers } from '../../src/source/reply-buffers.js';
import type { SourceRequest } from '../../src/source/types.js';
import { GET_LEASES } from '../../src/streams/leases/manifest.js';
import { allPages, clientFor, sourceConfig, startProxy, startSim, type Proxy } from './support.js';

describe('the buffers replies are read into', () => {
  it('gives the smallest spare buffer large enough, else a new one with room to spare', () => {
    const buffers = new ReplyBuffers(1000);
    const large = buffers.take(400);
    const small = buffers.take(100);
    expect(large.length).toBeGreaterThanOrEqual(400);
    expect(small.length).toBeGreaterThanOrEqual(100);
    buffers.give(large);
    buffers.give(small);
    expect(buffers.take(90)).toBe(small);
    expect(buffers.take(90)).toBe(large);
    expect(buffers.take(90)).not.toBe(small);
  });

  it('keeps no more spare bytes than it was given room for', () => {
    const buffers = new ReplyBuffers(1000);
    const first = buffers.take(600);
    const second = buffers.take(600);
    buffers.give(first);
    buffers.give(second);
    expect(buffers.take(600)).toBe(first);
    expect(buffers.take(600)).not.toBe(second);
  });
});

describe('JSON replies read into buffers used before', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  /**
   * Every other reply led by spaces to several times its size (JSON allows them): its text sits
   * at the end of its buffer, where a shorter reply read into that buffer after it does not reach.
   */
  let padding: Proxy;
  let request: SourceRequest;

  beforeAll(async () => {
    sim = await startSim();
    let replies = 0;
    padding = await startProxy(sim.url, (reply) =>
      replies++ % 2 === 0
        ? { ...reply, body: Buffer.concat([Buffer.alloc(reply.body.length * 3, 0x20), reply.body]) }
        : reply,
    );
    request = {
      method: GET_LEASES,
      params: {
        propertyId: sim.dataset.properties[0].PropertyID,
        leaseStatusTypeIds: [1, 2, 3, 4, 5, 6],
        includeArTransactions: '1',
      },
    };
  });
  afterAll(async () => {
    await padding.close();
    await sim.close();
  });

  it('decode each page from its own bytes: a short reply after a long one, page after page', async () => {
    const read = async (url: string) => {
      const { client } = clientFor(sourceConfig(url, { pageSize: 5 }));
      try {
        return await allPages(client, request);
      } finally {
        await client.close();
      }
    };
    const direct = await read(sim.url);
    const padded = await read(padding.url);
    expect(direct.length).toBeGreaterThan(6);
    expect(padded.map((page) => page.records)).toEqual(direct.map((page) => page.records));
    // The padded replies were the long ones: the buffers the short ones came into held more.
    expect(padded[0].bytes).toBeGreaterThan(3 * padded[1].bytes);
  });
});
