/**
 * A throwaway Postgres cluster with TLS on, for the TLS tests: its own data folder, a CA and a
 * server certificate (for 127.0.0.1 and localhost) made with openssl, a free port on 127.0.0.1,
 * trust auth over TLS only (`hostssl`). Never the machine's main server. As root it runs as the
 * `postgres` system user, since Postgres refuses root.
 */
import { execFile } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
  appendFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Where Debian puts a Postgres's programs; the newest one present. */
function binFolder(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')));
  if (!found) throw new Error('no Postgres programs under /usr/lib/postgresql (initdb, pg_ctl)');
  return found;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface TlsPostgres {
  port: number;
  /** The CA's certificate file (what `sslrootcert` names). */
  caFile: string;
  /** A CA file of another CA, which did not sign the server's certificate. */
  otherCaFile: string;
  /** `postgres://postgres@127.0.0.1:PORT/postgres` plus the query given. */
  url(query?: string): string;
  stop(): Promise<void>;
}

export async function startTlsPostgres(): Promise<TlsPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'propsync-tls-pg-'));
  chmodSync(dir, 0o755);
  const data = join(dir, 'data');
  const ssl = (...args: string[]) => run('openssl', args, { cwd: dir });
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=propsync test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  );
  await ssl(
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-days',
    '2',
    '-subj',
    '/CN=other CA',
    '-keyout',
    'other.key',
    '-out',
    'other.pem',
  );
  await ssl(
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-subj',
    '/CN=127.0.0.1',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
  );
  writeFileSync(join(dir, 'san.ext'), 'subjectAltName = IP:127.0.0.1, DNS:localhost\n');
  await ssl(
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '2',
    '-extfile',
    'san.ext',
    '-out',
    'server.crt',
  );
  const asRoot = process.getuid?.() === 0;
  const { stdout: ids } = asRoot ? await run('id', ['-u', 'postgres']) : { stdout: '' };
  const { stdout: gids } = asRoot ? await run('id', ['-g', 'postgres']) : { stdout: '' };
  chmodSync(join(dir, 'server.key'), 0o600);
  if (asRoot) {
    chownSync(dir, Number(ids), Number(gids));
    chownSync(join(dir, 'server.key'), Number(ids), Number(gids));
    chownSync(join(dir, 'server.crt'), Number(ids), Number(gids));
  }
  const bin = binFolder();
  const as = (program: string, args: string[]) =>
    asRoot
      ? run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args])
      : run(join(bin, program), args);
  await as('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const port = await freePort();
  appendFileSync(
    join(data, 'postgresql.conf'),
    [
      `port = ${port}`,
      "listen_addresses = '127.0.0.1'",
      `unix_socket_directories = '${dir}'`,
      'ssl = on',
      `ssl_cert_file = '${join(dir, 'server.crt')}'`,
      `ssl_key_file = '${join(dir, 'server.key')}'`,
      'fsync = off',
      '',
    ].join('\n'),
  );
  // TLS only over TCP: a connection without it is refused, as a managed service's would be.
  writeFileSync(join(data, 'pg_hba.conf'), 'local all all trust\nhostssl all all 127.0.0.1/32 trust\n');
  if (asRoot) await run('chown', ['postgres:postgres', join(data, 'pg_hba.conf')]);
  await as('pg_ctl', ['-D', data, '-l', join(dir, 'server.log'), '-w', '-t', '60', 'start']);
  return {
    port,
    caFile: join(dir, 'ca.pem'),
    otherCaFile: join(dir, 'other.pem'),
    url: (query = '') => `postgres://postgres@127.0.0.1:${port}/postgres${query ? `?${query}` : ''}`,
    async stop() {
      await as('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
