import { html, type Html } from './html.js';

/** The pages, in the order of the navigation bar. */
export const PAGES = [
  { path: '/', title: 'Overview' },
  { path: '/runs', title: 'Runs' },
  { path: '/quarantine', title: 'Quarantine' },
  { path: '/verify', title: 'Verify' },
  { path: '/queue', title: 'Queue' },
] as const;

/**
 * The tone of a status word, by its meaning rather than a fixed list (the run statuses may gain
 * names): good, warn, bad, live (in progress) or plain.
 */
export function toneOf(status: string): 'good' | 'warn' | 'bad' | 'live' | 'plain' {
  if (/^(succeeded|done|ok|completed|clean)$/.test(status)) return 'good';
  if (/fail|dead|abandon|error|drift/.test(status)) return 'bad';
  if (/^(running|queued|pending|active|created|retry|waiting)$/.test(status)) return 'live';
  if (/partial|budget|interrupt|skip|warn|cancel|stale/.test(status)) return 'warn';
  return 'plain';
}

/** A status as a coloured badge. */
export function badge(status: string, label: string = status): Html {
  return html`<span class="badge ${toneOf(status)}">${label}</span>`;
}

/**
 * A whole page: the navigation, the title, the body; scripts (files of /assets, never inline)
 * only for the pages that draw a chart.
 */
export function page(options: {
  path: string;
  title: string;
  body: Html;
  scripts?: readonly string[];
}): Html {
  const styles = options.scripts?.length
    ? ['/assets/uPlot.min.css', '/assets/console.css']
    : ['/assets/console.css'];
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${options.title} · propsync</title>
        ${styles.map((href) => html`<link rel="stylesheet" href="${href}" />`)}
        <link rel="icon" href="data:," />
        ${(options.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <header>
          <a class="brand" href="/">propsync</a>
          <nav>
            ${PAGES.map(
              (item) =>
                html`<a href="${item.path}" ${item.path === options.path ? html` aria-current="page"` : ''}
                  >${item.title}</a
                >`,
            )}
          </nav>
        </header>
        <main>
          <h1>${options.title}</h1>
          ${options.body}
        </main>
        <footer>Read-only. Rendered ${new Date().toISOString().slice(0, 19).replace('T', ' ')} UTC.</footer>
      </body>
    </html> `;
}

/** A `<select>` of a filter form, the chosen value selected; '' is "all". */
export function select(
  name: string,
  label: string,
  values: readonly string[],
  chosen: string | undefined,
): Html {
  return html`<label
    >${label}
    <select name="${name}">
      <option value="">all</option>
      ${values.map((value) => html`<option${value === chosen ? html` selected` : ''}>${value}</option>`)}
    </select></label
  >`;
}

/** The page number a list was asked for (`?page=`): 0 unless a whole number of at least 0. */
export function pageNumber(params: URLSearchParams): number {
  return Math.max(0, Math.floor(Number(params.get('page')) || 0));
}

/** Links to the previous and next page of a list. */
export function pager(hrefOf: (page: number) => string, current: number, hasMore: boolean): Html {
  if (current === 0 && !hasMore) return html``;
  return html`<nav class="pager">
    ${current > 0 ? html`<a rel="prev" href="${hrefOf(current - 1)}">← newer</a>` : ''}
    <span>page ${current + 1}</span
    >${hasMore ? html`<a rel="next" href="${hrefOf(current + 1)}">older →</a>` : ''}
  </nav>`;
}

/** A link to a run's page, or '–' without a run. */
export function runLink(account: string, runId: number | null, label = `#${runId}`): Html {
  if (runId === null) return html`–`;
  return html`<a href="/runs/${encodeURIComponent(account)}/${runId}">${label}</a>`;
}

/** `1 row`, `2,048 rows`. */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n.toLocaleString('en-US')} ${n === 1 ? word : many}`;
}

/** A list of ids, the first `shown` of them and how many more. */
export function someOf(ids: readonly string[], shown = 4): string {
  return ids.length > shown ? `${ids.slice(0, shown).join(', ')} +${ids.length - shown}` : ids.join(', ');
}
