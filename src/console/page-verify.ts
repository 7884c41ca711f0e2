import type { RecordedTable } from '../sync/verifications.js';
import type { ConsoleContext } from './context.js';
import { age, count, duration, timestamp } from './format.js';
import { html, queryOf, type Html } from './html.js';
import { badge, page, pageNumber, pager, plural, runLink, select } from './layout.js';
import { readVerifications, type VerifyRow } from './read-verify.js';

/** Passes listed per page (each may name up to 20 keys of each kind per table). */
const PASSES_PER_PAGE = 20;

function keyList(label: string, keys: readonly string[]): Html {
  return keys.length
    ? html`<div>
        <dt>${label}</dt>
        <dd>${keys.map((key) => html`<code>${key}</code> `)}</dd>
      </div>`
    : html``;
}

function driftedTable(table: RecordedTable): Html {
  return html`<li>
    <strong>${table.stream} · ${table.table}</strong>: ${count(table.checked)} rows checked;
    ${count(table.missing)} missing, ${count(table.extra)} extra, ${count(table.differing)} differing
    <dl class="keys">
      ${keyList('missing', table.missingKeys)}${keyList('extra', table.extraKeys)}${keyList(
        'differing',
        table.differingKeys.map((row) => `${row.key} (${row.columns.join(', ')})`),
      )}
    </dl>
  </li>`;
}

function pass(row: VerifyRow): Html {
  const drifted = row.tables.filter((table) => table.missing + table.extra + table.differing > 0);
  return html`<article class="pass" data-verification="${row.verificationId}">
    <h3>
      #${row.verificationId} ${row.account} · ${row.pass} ·
      ${row.clean ? badge('clean') : badge('drift', `${plural(row.driftRows, 'row')} drifted`)}
      ${row.status === 'succeeded' ? '' : badge(row.status)}
    </h3>
    <p>
      ${timestamp(row.finishedAt ?? row.startedAt)} (${age(row.finishedAt ?? row.startedAt)}),
      ${row.finishedAt ? duration(row.finishedAt.getTime() - row.startedAt.getTime()) : 'running'};
      ${row.selection}, ${plural(row.properties, 'property', 'properties')} of ${row.streams.join(', ')};
      ${runLink(row.account, row.runId, `run #${row.runId}`)}
    </p>
    ${row.error ? html`<p class="error">${row.error}</p>` : ''}
    ${
      drifted.length
        ? html`<ul class="drift">
            ${drifted.map(driftedTable)}
          </ul>`
        : ''
    }
  </article>`;
}

/** The passes of `propsync verify`, newest first, with the drifted keys each named. */
export async function verifyPage(context: ConsoleContext, params: URLSearchParams): Promise<Html> {
  const account = params.get('account')?.trim() || undefined;
  const current = pageNumber(params);
  const { passes, more } = await readVerifications(context, account, current, PASSES_PER_PAGE);
  const body = html`<p class="lead">
      Each pass reads properties again from the source and compares them with the warehouse row by row
      (docs/verify.md); <code>propsync verify --repair</code> mends what drifted.
    </p>
    <form class="filters" method="get" action="/verify">
      ${select(
        'account',
        'account',
        context.accounts.map((known) => known.id),
        account,
      )}
      <button type="submit">Filter</button>
    </form>
    ${
      passes.length
        ? passes.map(pass)
        : html`<p class="empty">No verify pass yet: run <code>propsync verify</code>, or set verify.cron.</p>`
    }
    ${pager((n) => `/verify${queryOf({ account, page: n || null })}`, current, more)}`;
  return page({ path: '/verify', title: 'Verify', body });
}
