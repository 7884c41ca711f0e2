/**
 * The bodies an alert target receives: Slack's incoming-webhook form, or propsync's own JSON
 * (docs/alerts.md documents its fields; `version` changes only when one is removed or changes meaning).
 */
import { hostname } from 'node:os';
import type { AlertFormat, AlertKind, AlertSeverity } from '../../config/schema.js';

/** What is told: a new or changed alert, a reminder that it lasts, its end, or a test. */
export type AlertEvent = 'firing' | 'reminder' | 'resolved' | 'test';

/** One message to one target. */
export interface AlertMessage {
  event: AlertEvent;
  kind: AlertKind | 'test';
  severity: AlertSeverity;
  account: string;
  /** The alert's identity within its account: `freshness:leases`, `credentials`. */
  alertKey: string;
  stream: string | null;
  /** One sentence saying what happened and what to do. */
  summary: string;
  /** The facts behind it (run id, failed units, first error, counts); no secret. */
  details: Record<string, unknown>;
  /** When it started firing. */
  since: string;
  at: string;
}

/** propsync's JSON body, version 1. */
export function jsonBody(message: AlertMessage): Record<string, unknown> {
  return { source: 'propsync', version: 1, host: hostname(), ...message };
}

const ICON: Record<AlertEvent, string> = {
  firing: ':rotating_light:',
  reminder: ':hourglass:',
  resolved: ':white_check_mark:',
  test: ':wave:',
};

/** The first line of a message, as chat shows it. */
export function headline(message: AlertMessage): string {
  const what =
    message.event === 'resolved'
      ? 'resolved'
      : message.event === 'reminder'
        ? `still ${message.severity} (since ${message.since})`
        : message.event === 'test'
          ? 'test message'
          : message.severity;
  const stream = message.stream ? ` (${message.stream})` : '';
  return `propsync ${message.account}: ${message.kind.replace('_', ' ')}${stream} ${what}`;
}

/** Slack's incoming-webhook body: a text fallback and a section with the summary. */
export function slackBody(message: AlertMessage): Record<string, unknown> {
  const title = `${ICON[message.event]} *${headline(message)}*`;
  return {
    text: `${headline(message)}: ${message.summary}`,
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: `${title}\n${message.summary}` } }],
  };
}

/** The body of a message in a target's format. */
export function bodyFor(format: AlertFormat, message: AlertMessage): Record<string, unknown> {
  return format === 'slack' ? slackBody(message) : jsonBody(message);
}
