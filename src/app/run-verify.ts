import type { StreamName } from '../config/schema.js';
import { loadStream } from '../streams/load-stream.js';
import pLimit from 'p-limit';
import { describeHolder, lockName, withStreamLocks } from '../sync/lock.js';
import type { SyncDeps, SyncObserver } from '../sync/types.js';
import {
  verifyAccount,
  type AccountVerification,
  type VerifyRequest,
  type VerifySelection,
} from '../sync/verify-account.js';
import { forgetDigests } from '../sync/verify-repair.js';
import type { VerifiedStream } from '../sync/verify-scope.js';
import { EXIT, type ExitCode } from './exit-codes.js';
import {
  lockOptions,
  requestedStreams,
  type AccountRun,
  type AccountRuntime,
  type Propsync,
} from './propsync.js';
import { messageOf } from '../log/errors.js';

/** What `propsync verify` asks. */
export interface VerifyCommand {
  streams?: StreamName[];
  selection: VerifySelection;
  /** Make the drifted scopes equal to the source (a full refresh of them), then verify them again. */
  repair: boolean;
}

/** How verifying one account ended. */
export interface AccountVerifyOutcome {
  account: string;
  /** The verification, or null when the account did not run (`error` says why). */
  check: AccountVerification | null;
  /** With `--repair` and drift: the full refresh of the drifted scopes, and the verification after it. */
  repair?: { runs: AccountRun[]; recheck: AccountVerification };
  error?: string;
  exitCode: ExitCode;
}

/**
 * The exit code of an account's verification: 1 when work was left undone, 4 when rows drifted (after the
 * repair, if any), else 0.
 */
export function verifyExitCode(outcome: Pick<AccountVerifyOutcome, 'check' | 'repair'>): ExitCode {
  const last = outcome.repair?.recheck ?? outcome.check;
  if (
    !last ||
    last.status !== 'succeeded' ||
    outcome.repair?.runs.some((run) => run.exitCode === EXIT.workFailed || run.exitCode === EXIT.usage)
  )
    return EXIT.workFailed;
  return last.driftRows > 0 ? EXIT.drift : EXIT.ok;
}

/**
 * Verifies an account while holding its streams' locks, so that no run of those streams writes
 * between the source's reading and the comparison (the stream locks are those every run takes;
 * see docs/verify.md). Throws, naming the holder, when a stream is being synced elsewhere.
 */
export async function verifyLocked(
  request: VerifyRequest,
  deps: Omit<SyncDeps, 'lock'>,
): Promise<AccountVerification> {
  const outcome = await withStreamLocks(
    deps.config.database.url,
    request.streams.map((stream) => lockName(deps.account.id, stream)),
    () => verifyAccount(request, deps),
    lockOptions(deps.config, deps.logger),
  );
  if (!outcome.acquired)
    throw new Error(
      `${describeHolder(outcome.stream, outcome.holder)}; nothing was verified, try again when that run has ended`,
    );
  return outcome.value;
}

/**
 * Verifies each account of a running propsync (side by side; each within its own budget and
 * pacing), and with `repair` refreshes the drifted scopes through the engine (a full refresh
 * of the drifted properties of each stream, their record digests forgotten first so that
 * every record is loaded again) and verifies those properties again.
 */
export async function runVerify(
  propsync: Propsync,
  command: VerifyCommand,
  observers: (SyncObserver | undefined)[] = [],
): Promise<AccountVerifyOutcome[]> {
  const streams = requestedStreams(propsync.config, { kind: 'sync', streams: command.streams });
  // As many accounts at once as their stream locks fit the connections allowed; the others as those end.
  const inTurn = pLimit(propsync.accountsAtOnce);
  return Promise.all(
    propsync.accounts.map((runtime) =>
      inTurn(() => verifyOne(propsync, runtime, { ...command, streams }, observers)),
    ),
  );
}

async function verifyOne(
  propsync: Propsync,
  runtime: AccountRuntime,
  command: VerifyCommand & { streams: StreamName[] },
  observers: (SyncObserver | undefined)[],
): Promise<AccountVerifyOutcome> {
  const { account, client } = runtime;
  if (runtime.refused)
    return { account: account.id, check: null, error: runtime.refused, exitCode: EXIT.workFailed };
  const observer = observers.find((item) => item !== undefined);
  const deps = {
    db: propsync.db,
    client,
    config: propsync.config,
    account,
    logger: propsync.logger,
    signal: propsync.signal,
    observer,
  };
  try {
    const check = await verifyLocked(
      { streams: command.streams, selection: command.selection, pass: 'check' },
      deps,
    );
    const drifted = check.streams.filter((stream) => stream.driftedProperties.length > 0);
    if (
      !command.repair ||
      drifted.length === 0 ||
      check.status === 'budget_exhausted' ||
      propsync.signal?.aborted
    ) {
      return { account: account.id, check, exitCode: verifyExitCode({ check }) };
    }
    const runs: AccountRun[] = [];
    for (const stream of drifted) {
      const loaded = (await loadStream(stream.stream)) as VerifiedStream;
      await forgetDigests(propsync.db, account.id, loaded, stream.driftedProperties);
      runs.push(
        ...(await propsync.run(
          { kind: 'sync', full: true, streams: [stream.stream], propertyIds: stream.driftedProperties },
          { observers, accounts: [account.id] },
        )),
      );
    }
    const properties = [...new Set(drifted.flatMap((stream) => stream.driftedProperties))];
    const recheck = await verifyLocked(
      {
        streams: drifted.map((stream) => stream.stream),
        selection: { kind: 'property', propertyIds: properties },
        pass: 'recheck',
      },
      deps,
    );
    const repair = { runs, recheck };
    return { account: account.id, check, repair, exitCode: verifyExitCode({ check, repair }) };
  } catch (error) {
    const message = messageOf(error);
    propsync.logger.error(
      { event: 'verify_failed', account: account.id, err: message },
      `account ${account.id}: verify failed: ${message}`,
    );
    return { account: account.id, check: null, error: message, exitCode: EXIT.workFailed };
  }
}
