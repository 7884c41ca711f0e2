import { sql, type Kysely } from 'kysely';

/** How long `/healthz` waits for the warehouse to answer `select 1` before it says "database timeout". */
export const HEALTH_DATABASE_TIMEOUT_MS = 2_500;

/** What is wrong, by the error's code (Node's socket errors and Postgres SQLSTATEs). */
const BY_CODE: Record<string, string> = {
  ECONNREFUSED: 'database unreachable (connection refused)',
  ECONNRESET: 'database unreachable (connection reset)',
  EPIPE: 'database unreachable (connection reset)',
  ETIMEDOUT: 'database unreachable (connection timed out)',
  EHOSTUNREACH: 'database unreachable (no route to host)',
  ENETUNREACH: 'database unreachable (network unreachable)',
  ENOTFOUND: 'database unreachable (host name not found)',
  EAI_AGAIN: 'database unreachable (host name lookup failed)',
  '28P01': 'database refused the login (authentication failed)',
  '28000': 'database refused the login (not authorized)',
  '3D000': 'database does not exist',
  '53300': 'database refused the connection (too many connections)',
  '57P01': 'database shutting down',
  '57P02': 'database shutting down',
  '57P03': 'database starting up or shutting down',
};

/**
 * What is wrong with the warehouse in words an operator acts on, never the driver's message:
 * that one names hosts, addresses, users and databases.
 */
export function describeDatabaseError(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && BY_CODE[code]) return BY_CODE[code];
  if (typeof code === 'string' && code.startsWith('08')) return 'database unreachable (connection failure)';
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return `database error (SQLSTATE ${code})`;
  const message = (error as Error | null)?.message ?? '';
  if (/timeout|timed out/i.test(message)) return 'database timeout';
  if (/terminated|closed|ended/i.test(message)) return 'database unreachable (connection closed)';
  return 'database unreachable';
}

/**
 * `select 1` on the warehouse, given at most `timeoutMs`: "ok", or what is wrong (see
 * describeDatabaseError; "database timeout" when it did not answer in time).
 */
export async function databaseHealth<DB>(
  db: Kysely<DB>,
  timeoutMs: number = HEALTH_DATABASE_TIMEOUT_MS,
): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve('database timeout'), timeoutMs);
  });
  try {
    return await Promise.race([sql`select 1`.execute(db).then(() => 'ok', describeDatabaseError), late]);
  } finally {
    clearTimeout(timer);
  }
}
