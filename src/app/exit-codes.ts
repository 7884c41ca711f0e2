import { RUN_EXIT } from '../sync/runs/states.js';

/**
 * Exit codes of every command; docs/operating.md#exit-codes-and-what-to-do explains them. A run's own codes come
 * from the run lifecycle (`RUN_EXIT`).
 */
export const EXIT = {
  /** Everything asked for was done. */
  ok: RUN_EXIT.ok,
  /**
   * Some work was left undone: work units failed (the rest were done and their cursors
   * advanced), the run was stopped by SIGINT, SIGTERM or SIGHUP (its row closed `interrupted`;
   * a signal sent again stops at once), today's call budget ran out, or another process held
   * the stream. The next run continues from the checkpoints.
   */
  workFailed: RUN_EXIT.workFailed,
  /** Bad usage or bad configuration; nothing was done. */
  usage: 2,
  /** Finished, but some records were quarantined (see `propsync status`). */
  quarantined: RUN_EXIT.quarantined,
  /**
   * `propsync verify`: the warehouse differs from the source (rows missing, extra or differing; after
   * `--repair`, still).
   */
  drift: 4,
  /** `propsync status --check`: a stream is late (freshness `warn`); nothing failed yet. */
  freshnessWarn: 5,
  /** `propsync status --check`: a stream is stale or never succeeded (freshness `error`). */
  freshnessError: 6,
  /** `propsync status --check`: the warehouse cannot be reached (or is not migrated), so nothing was judged. */
  databaseUnreachable: 7,
  /**
   * Finished what it could read, but a window was knowingly left unread (the source's today past the local
   * tomorrow): the summary's `unread:` lines say which and why.
   */
  incomplete: RUN_EXIT.incomplete,
} as const;
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error that ends a command with a given exit code and a message for the operator. */
export class ExitError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode = EXIT.usage,
  ) {
    super(message);
    this.name = 'ExitError';
  }
}
