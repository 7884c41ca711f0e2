/**
 * The engine's errors, in one place, told apart with `instanceof`: what each means for a run and what the operator
 * should do. The source client's own errors (source/errors.ts) are decided here too.
 */
import { messageOf } from '../log/errors.js';
import { isConnectionLost, sqlState } from '../warehouse/connection-errors.js';
import {
  AccessError,
  AuthenticationError,
  BadParameterError,
  BudgetExhaustedError,
  MalformedReplyError,
  ServerError,
  ThrottledError,
  TransportError,
  UnknownMethodError,
} from '../source/errors.js';

/**
 * A listing could not be shown complete (short of its total, or the same page again and again): the unit fails,
 * and its completion actions (deletions, cursors) do not run. Run again; if it repeats, the source is not paging.
 */
export class ListingError extends Error {
  override name = 'ListingError';
  constructor(
    message: string,
    /** Calls spent on the page that showed it (they count against the unit). */
    readonly attempts: number,
  ) {
    super(message);
  }
}

/** The run was asked to stop (a signal, a lost lock): the unit resumes from its checkpoint on the next run. */
export class InterruptedError extends Error {
  override name = 'InterruptedError';
  constructor(
    message = 'interrupted: the run was asked to stop; the unit resumes from its checkpoint next time',
  ) {
    super(message);
  }
}

/**
 * A constraint of the warehouse (unique, foreign key, a check someone added) refused a page's rows: the
 * warehouse's rule, not a bad record, so nothing is quarantined. Fix or drop the constraint, then run again.
 */
export class WarehouseConstraintError extends Error {
  override name = 'WarehouseConstraintError';
  constructor(pageNo: number, cause: unknown) {
    const { message, constraint, table, code } = cause as {
      message: string;
      constraint?: string;
      table?: string;
      code: string;
    };
    const where = [constraint && `constraint ${constraint}`, table && `table ${table}`, `SQLSTATE ${code}`]
      .filter(Boolean)
      .join(', ');
    super(
      `the warehouse refused page ${pageNo}: ${message} (${where}); a rule of the warehouse, ` +
        `not a bad record, so nothing was quarantined and the page was not loaded: ` +
        `fix or drop the constraint, then run again`,
      { cause },
    );
  }
}

/** Today's call budget is spent: the run stops; the rest runs when the budget renews. */
export function isBudgetError(error: unknown): error is BudgetExhaustedError {
  return error instanceof BudgetExhaustedError;
}

/**
 * The source refused the account's credentials or their rights: no retry can help, and every further call
 * risks locking the account at the vendor. The account's work stops at the first one; fix the credentials.
 */
export function isPermanentSourceError(error: unknown): error is AuthenticationError | AccessError {
  return error instanceof AuthenticationError || error instanceof AccessError;
}

/** What most errors of a call leave the operator to do. */
const RUN_AGAIN = 'run again';

/**
 * What the operator should do after a unit, lane or run ended with `error`, for the errors whose
 * own message does not say it; undefined for the others (and for an error of unknown kind).
 */
export function nextStep(error: unknown): string | undefined {
  if (error instanceof TransportError)
    return error.failure === 'connect'
      ? `check that the source answers at source.url (propsync check), then ${RUN_AGAIN}`
      : error.failure === 'timeout'
        ? `${RUN_AGAIN} (raise source.requestTimeoutMs if it repeats)`
        : RUN_AGAIN;
  if (error instanceof ThrottledError)
    return `the source kept throttling after the retries (source.retry); ${RUN_AGAIN}, or lower source.concurrency`;
  if (error instanceof ServerError) return `trouble on the source's side; ${RUN_AGAIN}`;
  if (error instanceof MalformedReplyError)
    return `${RUN_AGAIN}; if it repeats, the source is sending damaged replies: tell its owner`;
  if (error instanceof UnknownMethodError || error instanceof BadParameterError)
    return (
      'the request as propsync built it does not suit this source: ' +
      'check source.url and the stream settings (propsync config check)'
    );
  if (error instanceof ListingError)
    return `${RUN_AGAIN}; if it repeats, the source is not paging this listing: tell its owner`;
  return warehouseStep(error);
}

/** The next step after an error of the warehouse that outlasted the engine's own retries. */
function warehouseStep(error: unknown): string | undefined {
  if (isConnectionLost(error))
    return `the warehouse was away longer than database.reconnect.maxOutageMs; ${RUN_AGAIN} once it is back`;
  const state = sqlState(error);
  if (state === '57014' && /statement timeout/.test(messageOf(error)))
    return `raise database.statementTimeoutMs if the statement needs longer, then ${RUN_AGAIN}`;
  if (state === '42501') return 'the role of DATABASE_URL lacks a right: propsync check names what it lacks';
  return undefined;
}

/** The message of an error a unit, lane or run ended with, followed by what to do next when it does not say. */
export function endingMessage(error: unknown): string {
  const step = nextStep(error);
  return step ? `${messageOf(error)}; ${step}` : messageOf(error);
}
