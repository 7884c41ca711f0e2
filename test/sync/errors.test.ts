/**
 * The message an operator reads when a unit, lane or run ends with an error (a summary's `error:`
 * line, `sync_work_units.error`, `propsync status`): it says what to do next.
 */
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadParameterError,
  BudgetExhaustedError,
  MalformedReplyError,
  ReplyTooLargeError,
  ServerError,
  ThrottledError,
  TransportError,
  UnknownMethodError,
} from '../../src/source/errors.js';
import { endingMessage, ListingError, WarehouseConstraintError } from '../../src/sync/errors.js';

const site = { method: 'getLeases', property: '100001', page: 2 };

describe('endingMessage', () => {
  it('adds what to do to the errors of a call whose message does not say it', () => {
    const cases: [Error, string][] = [
      [
        new TransportError('no connection to the source (ECONNREFUSED)', { ...site, failure: 'connect' }),
        'check that the source answers at source.url (propsync check), then run again',
      ],
      [
        new TransportError('no reply within 60000 ms (source.requestTimeoutMs)', {
          ...site,
          failure: 'timeout',
        }),
        'run again (raise source.requestTimeoutMs if it repeats)',
      ],
      [new TransportError('no reply (ECONNRESET)', { ...site, failure: 'network' }), 'run again'],
      [new ServerError('server error', { ...site, status: 503 }), "trouble on the source's side; run again"],
      [new ThrottledError('throttled', { ...site, status: 429 }), 'or lower source.concurrency'],
      [new MalformedReplyError('reply body cut short', site), 'the source is sending damaged replies'],
      [new UnknownMethodError('unknown area, method or version', site), 'propsync config check'],
      [new BadParameterError('bad parameter: startDate', site), 'propsync config check'],
      [new ListingError('page 3 repeats the keys of page 2', 1), 'the source is not paging this listing'],
    ];
    for (const [error, advice] of cases) {
      const message = endingMessage(error);
      expect(message.startsWith(`${error.message}; `)).toBe(true);
      expect(message).toContain(advice);
    }
  });

  it('adds what to do to the errors of the warehouse that outlasted its retries', () => {
    const pgError = (message: string, code: string) => Object.assign(new Error(message), { code });
    expect(endingMessage(pgError('terminating connection due to administrator command', '57P01'))).toBe(
      'terminating connection due to administrator command; the warehouse was away longer than ' +
        'database.reconnect.maxOutageMs; run again once it is back',
    );
    expect(endingMessage(pgError('canceling statement due to statement timeout', '57014'))).toBe(
      'canceling statement due to statement timeout; raise database.statementTimeoutMs if the ' +
        'statement needs longer, then run again',
    );
    expect(endingMessage(pgError('permission denied for table sync_runs', '42501'))).toBe(
      'permission denied for table sync_runs; the role of DATABASE_URL lacks a right: ' +
        'propsync check names what it lacks',
    );
  });

  it('leaves alone the messages that already say what to do, and errors of unknown kind', () => {
    const said = [
      new ReplyTooLargeError(1000, { ...site, received: 1000 }),
      new WarehouseConstraintError(2, { message: 'duplicate key', code: '23505' }),
      new BudgetExhaustedError({
        ...site,
        budget: 10,
        day: '2026-01-02',
        resetsAt: new Date(0),
        timeZone: 'UTC',
        now: 0,
      }),
      new AuthenticationError('bad credentials', { ...site, status: 401 }),
      new Error('something else'),
    ];
    for (const error of said) expect(endingMessage(error)).toBe(error.message);
    expect(endingMessage('a string')).toBe('a string');
  });
});
