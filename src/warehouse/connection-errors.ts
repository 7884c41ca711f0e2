/**
 * What kind of trouble a database error is: a connection that was lost (the statement may
 * simply be run again on a new one), a lock wait or a statement that ran out of time, or a
 * value of a record that the server refused.
 */

/** SQLSTATEs of a session the server ended or could not start: the next connection may work. */
const LOST_SQLSTATES = new Set([
  '57P01', // admin_shutdown: pg_terminate_backend, a fast or smart shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now: the server is starting up or shutting down
  '25P03', // idle_in_transaction_session_timeout: the server ended the session
  '53300', // too_many_connections
]);

/** Node's codes of a socket that could not connect or was cut. */
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** pg's own words for a connection that broke, or could not be had in time. */
const LOST_MESSAGES = [
  'Connection terminated',
  'is not queryable',
  'timeout exceeded when trying to connect',
  'Connection terminated due to connection timeout',
];

/** The SQLSTATE of a Postgres error, or undefined. */
export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

/**
 * True for an error of a connection that was lost or could not be made (class 08, a session
 * the server ended, a socket cut or refused, pg's "Connection terminated"): not a problem of
 * the statement, which may run again on a new connection.
 */
export function isConnectionLost(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const state = sqlState(error);
  if (state) return state.startsWith('08') || LOST_SQLSTATES.has(state);
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return true;
  return LOST_MESSAGES.some((words) => error.message.includes(words));
}

/** True for a lock wait that ran out of `lock_timeout` (SQLSTATE 55P03). */
export function isLockTimeout(error: unknown): boolean {
  return sqlState(error) === '55P03';
}

/**
 * True for an error about a value a statement carried (SQLSTATE class 22, data exception: a
 * number out of range, text a type cannot read, a NUL byte): the record's fault, not the
 * warehouse's. Class 23 (a constraint of the warehouse) is not one.
 */
export function isValueError(error: unknown): boolean {
  return sqlState(error)?.startsWith('22') === true;
}
