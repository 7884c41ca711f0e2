import { BlockList, isIP } from 'node:net';
import type { z } from 'zod';

/** This machine's addresses: 127.0.0.0/8 and ::1 (and IPv4 loopback written as IPv6). */
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');

/** Whether a URL's host is this machine: localhost, 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && LOOPBACK.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** What the operator reads when the API password would cross the network in clear text. */
export const INSECURE_HTTP_MESSAGE =
  'would send the API password in clear text (Basic auth over http://) to another machine; use https://, ' +
  'or set source.allowInsecureHttp: true (PROPSYNC_API_ALLOW_INSECURE_HTTP=true) on a network you trust';

/**
 * Refuses `source.url` with http:// (the client always sends Basic auth) unless its host is this
 * machine or `source.allowInsecureHttp` is set.
 */
export function refuseInsecureHttp(
  source: { url: string; allowInsecureHttp: boolean },
  ctx: z.RefinementCtx,
): void {
  // A missing or malformed URL is reported by its own check.
  if (source.allowInsecureHttp || typeof source.url !== 'string' || !URL.canParse(source.url)) return;
  const url = new URL(source.url);
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    ctx.addIssue({ code: 'custom', path: ['url'], message: INSECURE_HTTP_MESSAGE });
}
