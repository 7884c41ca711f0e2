/**
 * `alerts:`: the webhook targets that hear of failed runs, refused credentials, a spent budget,
 * late data, drift, dead letters and quarantine. A target's URL is a secret (whoever holds it
 * may post to the channel): it is read from `urlEnv` (or `url`), kept in a `WebhookUrl` that
 * prints masked, and shown nowhere but in the request itself.
 */
import { z } from 'zod';
import { durationSchema } from '../streams/settings.js';
import type { Env } from './fields.js';
import type { Issues } from './issues.js';

/** What an alert is about; a target takes the kinds it lists (all by default). */
export const ALERT_KINDS = [
  'run_failed',
  'credentials',
  'budget',
  'freshness',
  'verify_drift',
  'dead_letter',
  'quarantine',
] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_SEVERITIES = ['warn', 'error'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

export const ALERT_FORMATS = ['slack', 'json'] as const;
export type AlertFormat = (typeof ALERT_FORMATS)[number];

/** A webhook URL: it prints as its scheme and host with the rest masked; `reveal()` is for the request only. */
export class WebhookUrl {
  readonly #value: string;
  constructor(value: string) {
    this.#value = value;
  }
  reveal(): string {
    return this.#value;
  }
  /** `https://hooks.slack.com/***`: enough to tell targets apart, nothing to post with. */
  masked(): string {
    const url = new URL(this.#value);
    return `${url.protocol}//${url.host}/***`;
  }
  toString(): string {
    return this.masked();
  }
  toJSON(): string {
    return this.masked();
  }
  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return this.masked();
  }
}

const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  message: 'is not an environment variable name; expected letters, digits and _ such as OPS_WEBHOOK_URL',
});

const webhookUrl = z
  .string()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), {
    message: 'is not an http(s) URL; expected the webhook URL such as https://hooks.slack.com/services/...',
  });

/** One target as written in the file. */
export const alertTargetSchema = z
  .object({
    /** How logs, `config check` and `alerts test` name the target; default `target-N`. */
    name: z
      .string()
      .regex(/^[A-Za-z0-9_.-]{1,40}$/, { message: 'expected 1 to 40 letters, digits, ., - or _' })
      .optional(),
    /** The webhook URL written in the file (accepted; `urlEnv` keeps it out of the file). */
    url: webhookUrl.optional(),
    /** The environment variable that holds the webhook URL. */
    urlEnv: environmentName.optional(),
    /** `slack`: Slack's incoming-webhook body; `json`: propsync's own body (docs/alerts.md). */
    format: z.enum(ALERT_FORMATS, { message: 'expected slack or json' }).default('json'),
    /** The kinds it wants; default all. */
    kinds: z
      .array(z.enum(ALERT_KINDS, { message: `expected one of ${ALERT_KINDS.join(', ')}` }))
      .min(1)
      .optional(),
    /** The least severity it hears of: `warn` (everything) or `error`. */
    minSeverity: z.enum(ALERT_SEVERITIES, { message: 'expected warn or error' }).default('warn'),
    /** Only these accounts' alerts (an account's own channel); default every account. */
    accounts: z.array(z.string()).min(1).optional(),
    /** While an alert lasts, it is sent again this often. */
    remindEvery: durationSchema.prefault('24h'),
    /** Longest wait for one attempt's answer. */
    timeout: durationSchema.prefault('10s'),
    /** Longest time spent on one message, its retries included; then it is given up, logged and counted. */
    giveUpAfter: durationSchema.prefault('2m'),
  })
  .strict();

export const alertsSchema = z.array(alertTargetSchema).default([]);

/** A target once resolved: its URL read, every default filled in. */
export interface AlertTarget {
  name: string;
  url: WebhookUrl;
  format: AlertFormat;
  kinds: readonly AlertKind[];
  minSeverity: AlertSeverity;
  accounts: readonly string[] | null;
  remindEveryMs: number;
  timeoutMs: number;
  giveUpAfterMs: number;
}

/**
 * The targets with their URLs read from the environment; each problem added at its key. Offline
 * commands (status, migrate) need no URL: a target whose variable is unset is left out for them.
 */
export function resolveAlertTargets(
  written: z.output<typeof alertsSchema>,
  context: { env: Env; issues: Issues; offline: boolean; accounts: readonly string[] },
): AlertTarget[] {
  const targets: AlertTarget[] = [];
  const names = new Set<string>();
  written.forEach((target, index) => {
    const path = ['alerts', index];
    const name = target.name ?? `target-${index + 1}`;
    if (names.has(name))
      context.issues.add([...path, 'name'], `'${name}' names two targets; expected distinct names`);
    names.add(name);
    for (const account of target.accounts ?? [])
      if (!context.accounts.includes(account))
        context.issues.add(
          [...path, 'accounts'],
          `names the account '${account}', which is not configured; expected one of ${context.accounts.join(', ')}`,
        );
    let url: string | undefined;
    if (target.url !== undefined && target.urlEnv !== undefined)
      context.issues.add(
        [...path, 'url'],
        'is given as well as urlEnv; expected only urlEnv: remove url from the file',
        {
          hideValue: true,
        },
      );
    else if (target.urlEnv !== undefined) {
      url = context.env[target.urlEnv] || undefined;
      if (url === undefined && !context.offline)
        context.issues.add(
          [...path, 'urlEnv'],
          `names a variable that is not set (or is empty); expected ${target.urlEnv} to hold the webhook URL`,
        );
      else if (url !== undefined && !webhookUrl.safeParse(url).success)
        context.issues.add(
          [...path, 'urlEnv'],
          `names a variable that does not hold an http(s) URL; expected ${target.urlEnv} to hold the webhook URL`,
        );
    } else if (target.url !== undefined) url = target.url;
    else context.issues.add([...path, 'urlEnv'], 'is missing; expected urlEnv (or url) with the webhook URL');
    if (url === undefined || !webhookUrl.safeParse(url).success) return;
    targets.push({
      name,
      url: new WebhookUrl(url),
      format: target.format,
      kinds: target.kinds ?? ALERT_KINDS,
      minSeverity: target.minSeverity,
      accounts: target.accounts ?? null,
      remindEveryMs: target.remindEvery,
      timeoutMs: target.timeout,
      giveUpAfterMs: Math.max(target.giveUpAfter, target.timeout),
    });
  });
  return targets;
}
