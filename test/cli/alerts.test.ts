/**
 * Issue 38 item 5 through the command line, against the simulator: wrong credentials give one
 * alert and fixing them one `resolved`; `alerts test` reaches each target; `config check` shows
 * the targets masked; no webhook URL in any output.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runPropsync, scratchFolder } from '../support/cli.js';
import { PASSWORD, startCliWorld, type CliWorld } from './support.js';

const SECRET_PATH = '/services/T0HOOK/B0HOOK/s3cretWebhook77';

let world: CliWorld;
let server: Server;
let hookUrl: string;
const received: Record<string, unknown>[] = [];
let folder: { dir: string; remove(): void };

beforeAll(async () => {
  world = await startCliWorld();
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      if (request.url === SECRET_PATH) received.push(JSON.parse(body) as Record<string, unknown>);
      response.writeHead(request.url === SECRET_PATH ? 200 : 404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}${SECRET_PATH}`;
  folder = scratchFolder({
    'config/propsync.yaml': `alerts:
  - name: ops
    urlEnv: OPS_HOOK
    format: json
    kinds: [credentials, run_failed]
    timeout: 2s
    giveUpAfter: 10s
  - name: chat
    urlEnv: OPS_HOOK
    format: slack
    kinds: [credentials]
    minSeverity: error
`,
  });
}, 120_000);
afterAll(async () => {
  folder?.remove();
  await new Promise<void>((resolve) => server?.close(() => resolve()));
  await world?.close();
});

const propsync = (args: string[], env: Record<string, string> = {}) =>
  runPropsync(args, { cwd: folder.dir, env: { ...world.env, OPS_HOOK: hookUrl, ...env } });

describe('alerts through the command line', () => {
  it('wrong credentials give one alert per target; fixing them one resolved', async () => {
    const outputs: string[] = [];
    const wrong = await propsync(['sync', '--stream', 'leases'], {
      PROPSYNC_API_PASSWORD: 'not-the-password',
    });
    outputs.push(wrong.stdout, wrong.stderr);
    expect(wrong.code).toBe(1);
    const again = await propsync(['sync', '--stream', 'leases'], {
      PROPSYNC_API_PASSWORD: 'not-the-password',
    });
    outputs.push(again.stdout, again.stderr);
    const firing = received.filter(
      (body) => body.kind === 'credentials' || /credentials/.test(String(body.text)),
    );
    expect(received).toHaveLength(2);
    expect(firing).toHaveLength(2);
    expect(received.find((body) => body.source === 'propsync')).toMatchObject({
      event: 'firing',
      kind: 'credentials',
      severity: 'error',
      account: 'default',
      summary: expect.stringMatching(/^the source refused the credentials of account default/),
    });
    received.length = 0;
    const fixed = await propsync(['sync', '--stream', 'leases'], { PROPSYNC_API_PASSWORD: PASSWORD });
    outputs.push(fixed.stdout, fixed.stderr);
    expect([0, 3]).toContain(fixed.code);
    expect(
      received.map((body) => body.event ?? (/resolved/.test(String(body.text)) ? 'resolved' : body.text)),
    ).toEqual(['resolved', 'resolved']);
    for (const output of outputs) expect(output).not.toContain('s3cretWebhook77');
  }, 240_000);

  it('alerts test reaches each target, config check shows them masked, and no output holds the URL', async () => {
    received.length = 0;
    const test = await propsync(['alerts', 'test']);
    expect(test.code).toBe(0);
    expect(test.stdout.trim().split('\n').sort()).toEqual([
      expect.stringMatching(
        /^ok chat \(slack, http:\/\/127\.0\.0\.1:\d+\/\*\*\*\): delivered \(1 attempt\)$/,
      ),
      expect.stringMatching(/^ok ops \(json, http:\/\/127\.0\.0\.1:\d+\/\*\*\*\): delivered \(1 attempt\)$/),
    ]);
    expect(received).toHaveLength(2);
    const check = await propsync(['config', 'check']);
    expect(check.code).toBe(0);
    expect(check.stdout).toMatch(
      /^# alert target ops: json to http:\/\/127\.0\.0\.1:\d+\/\*\*\*, credentials, run_failed, warn and error, every account$/m,
    );
    expect(check.stdout).toMatch(
      /^# alert target chat: slack to .*, credentials, error only, every account$/m,
    );
    const unset = await runPropsync(['config', 'check'], { cwd: folder.dir, env: world.env });
    expect(unset.code).toBe(2);
    expect(unset.stderr).toMatch(/alerts\[0\]\.urlEnv.*OPS_HOOK/);
    for (const output of [test.stdout, test.stderr, check.stdout, check.stderr, unset.stdout, unset.stderr])
      expect(output).not.toContain('s3cretWebhook77');
  }, 120_000);
});
