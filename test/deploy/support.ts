import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parser } from '@prometheus-io/lezer-promql';
import { parse as parseYaml } from 'yaml';

/** The checkout's top folder. */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function readText(path: string): string {
  return readFileSync(resolve(ROOT, path), 'utf8');
}

/** A YAML file of the checkout, `<<` merge keys resolved as Compose resolves them. */
export function readYaml<T = any>(path: string): T {
  return parseYaml(readText(path), { merge: true }) as T;
}

/** A required variable that Compose found unset or empty, with the message the file gives. */
export interface MissingVariable {
  name: string;
  message: string;
}

/**
 * A Compose file's text with its variables substituted as Compose substitutes them from `env`
 * (`${X}`, `${X:-default}`, `${X-default}`, `${X:?message}`, `${X?message}`, `$$`), and the
 * required variables it found missing (Compose then refuses to start, printing their messages).
 */
export function interpolate(
  text: string,
  env: Record<string, string | undefined>,
): { text: string; missing: MissingVariable[] } {
  const missing: MissingVariable[] = [];
  const out = text.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?)([-?])([^}]*))?\}/g,
    (_whole, name?: string, colon?: string, kind?: string, word?: string) => {
      if (!name) return '$';
      const value = env[name];
      const absent = value === undefined || (colon === ':' && value === '');
      if (kind === '?' && absent) missing.push({ name, message: word ?? '' });
      if (kind === '-' && absent) return word ?? '';
      return value ?? '';
    },
  );
  return { text: out, missing };
}

/** The alert rules of deploy/prometheus/alerts.yml. */
export interface AlertRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export function alertRules(): AlertRule[] {
  const file = readYaml<{ groups: { name: string; rules: AlertRule[] }[] }>('deploy/prometheus/alerts.yml');
  return file.groups.flatMap((group) => group.rules);
}

/** Every PromQL query of the Grafana dashboard, Grafana's interval variables replaced by a duration. */
export function dashboardQueries(): string[] {
  const dashboard = JSON.parse(readText('deploy/grafana/dashboards/propsync.json')) as {
    panels: { targets: { expr: string }[] }[];
  };
  return dashboard.panels.flatMap((panel) =>
    panel.targets.map((target) => target.expr.replace(/\$__(rate_)?interval|\$__range/g, '5m')),
  );
}

/**
 * Parses a PromQL expression with Prometheus' own grammar; returns the syntax errors' positions and the
 * metric names it selects.
 */
export function promql(expr: string): { errors: number[]; metrics: string[] } {
  const errors: number[] = [];
  const metrics = new Set<string>();
  const tree = parser.parse(expr);
  tree.iterate({
    enter(node) {
      if (node.type.isError) errors.push(node.from);
      if (node.name === 'VectorSelector') {
        const identifier = node.node.getChild('Identifier');
        if (identifier) metrics.add(expr.slice(identifier.from, identifier.to));
      }
    },
  });
  return { errors, metrics: [...metrics] };
}

/**
 * The sample names of a Prometheus text exposition: every `# TYPE` line's metric, with the
 * `_bucket`, `_sum` and `_count` series of histograms and summaries.
 */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const match of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    const [, name, type] = match;
    names.add(name);
    if (type === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix);
    if (type === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix);
  }
  for (const match of exposition.matchAll(/^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/gm)) names.add(match[1]);
  return names;
}

/** Series that Prometheus makes itself for every target (not exported by propsync). */
export const PROMETHEUS_SERIES = new Set(['up']);

/** Every metric name that the alert rules and the dashboard query. */
export function queriedMetrics(): string[] {
  const exprs = [...alertRules().map((rule) => rule.expr), ...dashboardQueries()];
  return [...new Set(exprs.flatMap((expr) => promql(expr).metrics))]
    .filter((name) => !PROMETHEUS_SERIES.has(name))
    .sort();
}
