/**
 * Alerts sent once per change across any number of processes. Each evaluation reads what fires
 * now (conditions.ts), then per account, under a transaction-level advisory lock, compares it
 * with what each target was last told (`alert_state`), writes what it is about to tell, commits,
 * and only then sends: a second process waits for the lock and finds nothing left to tell.
 */
import { sql } from 'kysely';
import type { AlertTarget, Config, OfflineConfig } from '../../config/schema.js';
import { ALERT_SEVERITIES } from '../../config/schema.js';
import type { Db } from '../../catalog/tables.js';
import type { Logger } from '../../log/logger.js';
import { readConditions, type AlertAccount, type Condition } from './conditions.js';
import { deliver, type Delivery } from './deliver.js';
import { bodyFor, headline, type AlertMessage } from './messages.js';
import { messageOf } from '../../log/errors.js';

/** What became of one message (for the metrics). */
export interface DeliveryEvent {
  account: string;
  target: string;
  kind: string;
  event: AlertMessage['event'];
  delivered: boolean;
}

export interface EvaluateOptions {
  logger: Logger;
  /** The clock of freshness and reminders (tests move it); default: the database's. */
  now?: Date;
  onDelivery?: (event: DeliveryEvent) => void;
  signal?: AbortSignal;
}

interface StateRow {
  alert_key: string;
  target: string;
  kind: string;
  status: string;
  severity: string;
  value: string | null;
  since: Date;
  notified_at: Date;
  reminders: number;
}

/** A message decided on, with the row that records it. */
interface Decision {
  target: AlertTarget;
  message: AlertMessage;
  row: {
    alert_key: string;
    target: string;
    kind: string;
    status: 'firing' | 'resolved';
    severity: string;
    summary: string;
    value: number | null;
    since: Date;
    reminders: number;
  };
}

const severityRank = (severity: string) =>
  ALERT_SEVERITIES.indexOf(severity as (typeof ALERT_SEVERITIES)[number]);

/** Whether a target hears of a condition: its kind, its severity, its account. */
export function wants(
  target: AlertTarget,
  condition: Pick<Condition, 'kind' | 'severity' | 'account'>,
): boolean {
  return (
    target.kinds.includes(condition.kind) &&
    severityRank(condition.severity) >= severityRank(target.minSeverity) &&
    (target.accounts === null || target.accounts.includes(condition.account))
  );
}

/** What to tell one target of one alert, given what it was last told; null when nothing. */
function decide(
  target: AlertTarget,
  account: string,
  key: string,
  condition: Condition | undefined,
  last: StateRow | undefined,
  now: Date,
): Decision | null {
  const firing = condition && wants(target, condition) ? condition : undefined;
  const wasFiring = last?.status === 'firing';
  const at = now.toISOString();
  if (!firing) {
    if (!last || !wasFiring) return null;
    const summary =
      `${last.kind.replace('_', ' ')} of account ${account} is over (firing ` +
      `since ${last.since.toISOString()})`;
    return {
      target,
      message: {
        event: 'resolved',
        kind: last.kind as Condition['kind'],
        severity: last.severity as Condition['severity'],
        account,
        alertKey: key,
        stream: key.includes(':') ? key.split(':')[1] : null,
        summary,
        details: {},
        since: last.since.toISOString(),
        at,
      },
      row: {
        alert_key: key,
        target: target.name,
        kind: last.kind,
        status: 'resolved',
        severity: last.severity,
        summary,
        value: null,
        since: last.since,
        reminders: last.reminders,
      },
    };
  }
  const fresh = !last || !wasFiring;
  const changed =
    !fresh && (last.severity !== firing.severity || (firing.value ?? 0) > Number(last.value ?? 0));
  const remind = !fresh && !changed && now.getTime() - last.notified_at.getTime() >= target.remindEveryMs;
  if (!fresh && !changed && !remind) return null;
  const since = fresh ? now : last.since;
  return {
    target,
    message: {
      event: remind ? 'reminder' : 'firing',
      kind: firing.kind,
      severity: firing.severity,
      account,
      alertKey: key,
      stream: firing.stream,
      summary: firing.summary,
      details: firing.details,
      since: since.toISOString(),
      at,
    },
    row: {
      alert_key: key,
      target: target.name,
      kind: firing.kind,
      status: 'firing',
      severity: firing.severity,
      summary: firing.summary,
      value: firing.value,
      since,
      reminders: remind ? last!.reminders + 1 : 0,
    },
  };
}

/** Decides and records, under the account's lock, what each target is to be told; returns it to send. */
async function claim(
  db: Db,
  account: string,
  conditions: readonly Condition[],
  targets: readonly AlertTarget[],
  now: Date,
): Promise<Decision[]> {
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtextextended(${`propsync alerts ${account}`}, 0))`.execute(
      trx,
    );
    const { rows } = await sql<StateRow>`
      select alert_key, target, kind, status, severity, value::text, since, notified_at, reminders
        from alert_state where account_id = ${account}`.execute(trx);
    const keys = new Set([...conditions.map((c) => c.key), ...rows.map((r) => r.alert_key)]);
    const decisions: Decision[] = [];
    for (const target of targets)
      for (const key of keys) {
        const decision = decide(
          target,
          account,
          key,
          conditions.find((c) => c.key === key),
          rows.find((r) => r.alert_key === key && r.target === target.name),
          now,
        );
        if (decision) decisions.push(decision);
      }
    for (const { row } of decisions)
      await sql`
        insert into alert_state (account_id, alert_key, target, kind, status, severity, summary, value, since,
                                 notified_at, reminders, delivered_at)
        values (${account}, ${row.alert_key}, ${row.target}, ${row.kind}, ${row.status}, ${row.severity},
                ${row.summary}, ${row.value}, ${row.since}, ${now}, ${row.reminders}, null)
        on conflict (account_id, alert_key, target) do update set
          kind = excluded.kind, status = excluded.status, severity = excluded.severity, summary = excluded.summary,
          value = excluded.value, since = excluded.since, notified_at = excluded.notified_at,
          reminders = excluded.reminders, delivered_at = null`.execute(trx);
    return decisions;
  });
}

/** Sends one message; logs and reports how it went (never with the URL). */
async function send(db: Db, decision: Decision, options: EvaluateOptions, now: Date): Promise<Delivery> {
  const { target, message } = decision;
  const result = await deliver(target, bodyFor(target.format, message), options.signal);
  const fields = {
    event: 'alert_sent',
    target: target.name,
    account: message.account,
    kind: message.kind,
    alert: message.event,
    attempts: result.attempts,
  };
  if (result.delivered) {
    options.logger.info(fields, `alert to ${target.name}: ${headline(message)}`);
    await sql`update alert_state set delivered_at = now()
               where account_id = ${message.account} and alert_key = ${message.alertKey} and target = ${target.name}
                 and notified_at = ${now}`
      .execute(db)
      .catch(() => undefined);
  } else
    options.logger.warn(
      { ...fields, event: 'alert_undelivered', err: result.error },
      `could not deliver an alert to ${target.name} (${headline(message)}): ${result.error}; ` +
        `it is counted in propsync_alerts_undelivered_total, and sent again at its next reminder`,
    );
  options.onDelivery?.({
    account: message.account,
    target: target.name,
    kind: message.kind,
    event: message.event,
    delivered: result.delivered,
  });
  return result;
}

/** The configured targets, and the accounts a process evaluates. */
export interface AlertScope {
  config: Pick<Config | OfflineConfig, 'streams' | 'alerts'>;
  accounts: readonly AlertAccount[];
}

/**
 * Evaluates the alerts of some accounts and sends what is due. It never throws and never
 * waits longer than the targets' `giveUpAfter`: a failure is logged, and the next evaluation
 * (after the next run, or on the timer of a long-running process) tries again.
 */
export async function evaluateAlerts(db: Db, scope: AlertScope, options: EvaluateOptions): Promise<number> {
  const targets = scope.config.alerts;
  if (targets.length === 0 || scope.accounts.length === 0) return 0;
  try {
    const now = options.now ?? (await sql<{ now: Date }>`select now() as now`.execute(db)).rows[0].now;
    const conditions = await readConditions(db, scope.config, scope.accounts, { now });
    const decisions: Decision[] = [];
    for (const account of scope.accounts)
      decisions.push(
        ...(await claim(
          db,
          account.id,
          conditions.filter((c) => c.account === account.id),
          targets,
          now,
        )),
      );
    await Promise.all(decisions.map((decision) => send(db, decision, options, now)));
    return decisions.length;
  } catch (error) {
    const message = messageOf(error);
    options.logger.warn(
      { event: 'alerts_failed', err: message },
      `could not evaluate the alerts: ${message}; the next evaluation tries again`,
    );
    return 0;
  }
}
