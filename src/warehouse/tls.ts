import { sql, type Kysely } from 'kysely';
import { messageOf } from '../log/errors.js';

/**
 * TLS to the warehouse as `DATABASE_URL` asks for it, in node-postgres's words (pg-connection-string):
 * `sslmode` prefer, require, verify-ca and verify-full all verify the server's certificate chain and
 * host name (libpq's verify-full), `no-verify` encrypts without checking, `disable` or no
 * `sslmode` means no TLS; `sslrootcert` names the CA file. With `uselibpqcompat=true` the modes
 * mean what they mean to libpq (require: encrypt only). docs/operating.md#tls-to-the-warehouse.
 */
export interface TlsSettings {
  /** Whether the connection asks for TLS at all. */
  requested: boolean;
  /** The `sslmode` parameter, if any. */
  mode: string | null;
  /** What is checked of the server's certificate: chain and host name, chain only, or nothing. */
  verifies: 'chain and host name' | 'chain only' | 'nothing' | null;
  /** The `sslrootcert` file, if any. */
  rootCert: string | null;
}

/** What a URL asks of TLS (see `TlsSettings`). */
export function tlsSettingsOf(url: string): TlsSettings {
  let params: URLSearchParams;
  try {
    params = new URL(url).searchParams;
  } catch {
    params = new URLSearchParams();
  }
  const mode = params.get('sslmode');
  const rootCert = params.get('sslrootcert');
  const libpq = params.get('uselibpqcompat') === 'true';
  const requested =
    mode !== 'disable' && (mode !== null || rootCert !== null || params.has('sslcert') || params.has('ssl'));
  let verifies: TlsSettings['verifies'] = null;
  if (requested) {
    if (mode === 'no-verify' || (libpq && (mode === 'prefer' || (mode === 'require' && !rootCert))))
      verifies = 'nothing';
    else if (libpq && (mode === 'verify-ca' || mode === 'require')) verifies = 'chain only';
    else verifies = 'chain and host name';
  }
  return { requested, mode, verifies, rootCert };
}

/** The TLS of a session as the server sees it (`pg_stat_ssl`). */
export interface SessionTls {
  ssl: boolean;
  version: string | null;
}

/** The TLS of the session that runs the query. */
export async function sessionTls<DB>(db: Kysely<DB>): Promise<SessionTls> {
  const { rows } = await sql<{ ssl: boolean | null; version: string | null }>`
    select ssl, version from pg_stat_ssl where pid = pg_backend_pid()`.execute(db);
  return { ssl: rows[0]?.ssl === true, version: rows[0]?.version ?? null };
}

/** One phrase on TLS: what the URL asks for and, when connected, what the session has. */
export function describeTls(settings: TlsSettings, session?: SessionTls): string {
  const mode = settings.mode ? `sslmode=${settings.mode}` : 'no sslmode';
  if (!settings.requested)
    return `TLS not asked for (${mode} in DATABASE_URL; see docs/operating.md#tls-to-the-warehouse)`;
  if (session && !session.ssl) return `TLS not in use (${mode})`;
  const inUse = session ? `TLS in use (${session.version ?? 'TLS'})` : 'TLS asked for';
  const against = settings.rootCert ? `against sslrootcert ${settings.rootCert}` : "against Node's CA list";
  const verified =
    settings.verifies === 'nothing'
      ? 'certificate NOT verified: set sslmode=verify-full to check it'
      : `certificate verified: ${settings.verifies} ${against}`;
  return `${inUse}, ${verified} (${mode})`;
}

/** Node's codes of a certificate it would not trust. */
const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_GET_ISSUER_CERT',
  'CERT_UNTRUSTED',
]);

/**
 * What to set when connecting failed over TLS (an untrusted or misnamed certificate, a server
 * without TLS, one that insists on it), or undefined when the error is about something else.
 */
export function tlsAdvice(error: unknown, url: string): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const message = messageOf(error);
  const settings = tlsSettingsOf(url);
  if (typeof code === 'string' && UNTRUSTED.has(code))
    return settings.rootCert
      ? `the server's certificate is not signed by the CA in sslrootcert ${settings.rootCert}; ` +
          `point sslrootcert at the CA that signed it`
      : "the server's certificate is not signed by a CA Node trusts; add sslrootcert=/path/to/ca.pem (the CA's " +
          ('certificate, from your provider) to DATABASE_URL, or sslmode=no-verify to encrypt without ' +
            'checking (not advised)');
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID')
    return "the server's certificate does not name the host in DATABASE_URL; connect by a name the certificate names";
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return "the server's certificate is out of its validity dates; renew it on the server";
  if (/does not support SSL/i.test(message))
    return (
      'the server has TLS off; turn ssl on at the server, or remove sslmode from DATABASE_URL to ' +
      'connect unencrypted'
    );
  if (/no encryption|SSL off|hostssl/i.test(message) && !settings.requested)
    return (
      'the server accepts only TLS connections; ' +
      'add sslmode=verify-full (and sslrootcert=/path/to/ca.pem) to DATABASE_URL'
    );
  if (/ENOENT/.test(message) && settings.rootCert)
    return `sslrootcert ${settings.rootCert} cannot be read; give the path of the CA's certificate file`;
  return undefined;
}
