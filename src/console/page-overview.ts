import type { ConsoleContext } from './context.js';
import { age, count, duration, timestamp } from './format.js';
import { html, queryOf, type Html } from './html.js';
import { badge, page, plural } from './layout.js';
import { readAccountOverview, type AccountOverview, type StreamRow } from './read-overview.js';

function freshnessCell(row: StreamRow): Html {
  if (!row.freshness) return html`<td>${badge('plain', 'not scheduled')}</td>`;
  const { state, reason } = row.freshness;
  return html`<td title="${reason}">
    ${badge(state === 'ok' ? 'ok' : state === 'warn' ? 'warn' : 'error', state)}
  </td>`;
}

function lastRunCells(account: string, row: StreamRow): Html {
  const run = row.lastRun;
  const running = row.running.length
    ? html` ${badge(row.running[0].status, `${row.running[0].status} now`)}`
    : '';
  if (!run)
    return html`<td>never${running}</td>
      <td>–</td>
      <td class="num">–</td>
      <td class="num">–</td>`;
  const runHref = `/runs/${encodeURIComponent(account)}/${run.runId}`;
  return html`<td><a href="${runHref}">${badge(run.status)}</a>${running}</td>
    <td title="${timestamp(run.finishedAt)}">${age(run.finishedAt)}</td>
    <td class="num">${count(run.rowsInserted + run.rowsUpdated)}</td>
    <td class="num">${duration(run.durationMs)}</td>`;
}

function accountSection(overview: AccountOverview): Html {
  const { account } = overview;
  const budget = account.dailyCallBudget;
  const spent = overview.callsToday;
  const share = budget > 0 ? Math.min(100, Math.round((spent / budget) * 100)) : 0;
  const worst = overview.streams.map((row) => row.freshness?.state).filter((state) => state !== undefined);
  const quarantineHref = `/quarantine${queryOf({ account: account.id })}`;
  return html`<section class="account" data-account="${account.id}">
    <h2>${account.name ? `${account.name} (${account.id})` : account.id}</h2>
    <dl class="totals">
      <div>
        <dt>streams</dt>
        <dd>
          ${(['ok', 'warn', 'error'] as const).map((state) => {
            const n = worst.filter((value) => value === state).length;
            return n ? html`${badge(state, `${n} ${state}`)} ` : '';
          })}
        </dd>
      </div>
      <div>
        <dt>calls today</dt>
        <dd>
          ${count(spent)} / ${count(budget)} <meter min="0" max="100" value="${share}">${share}%</meter>
        </dd>
      </div>
      <div>
        <dt>runs today</dt>
        <dd>
          ${
            overview.runsToday.length
              ? overview.runsToday.map((row) => html`${badge(row.status, `${row.runs} ${row.status}`)} `)
              : 'none'
          }
        </dd>
      </div>
      <div>
        <dt>open quarantine</dt>
        <dd><a href="${quarantineHref}">${count(overview.openQuarantine)}</a></dd>
      </div>
      <div>
        <dt>last verify</dt>
        <dd>
          ${
            overview.lastVerify
              ? html`<a href="/verify${queryOf({ account: account.id })}"
                    >${
                      overview.lastVerify.driftRows
                        ? badge('drift', `${plural(overview.lastVerify.driftRows, 'row')} drifted`)
                        : badge('clean')
                    }</a
                  >
                  ${age(overview.lastVerify.finishedAt)}`
              : 'never'
          }
        </dd>
      </div>
    </dl>
    <div class="scroll">
      <table class="streams">
        <thead>
          <tr>
            <th>stream</th>
            <th>freshness</th>
            <th>last run</th>
            <th>age</th>
            <th class="num">rows</th>
            <th class="num">duration</th>
            <th>next run</th>
            <th class="num">calls today</th>
            <th class="num">quarantine</th>
            <th class="num">verify drift</th>
          </tr>
        </thead>
        <tbody>
          ${overview.streams.map(
            (row) =>
              html`<tr data-stream="${row.stream}">
                <th scope="row">
                  <a href="/runs${queryOf({ account: account.id, stream: row.stream })}">${row.stream}</a>
                </th>
                ${freshnessCell(row)} ${lastRunCells(account.id, row)}
                <td title="${timestamp(row.nextRun)}">${row.nextRun ? age(row.nextRun) : '–'}</td>
                <td class="num">${count(row.callsToday)}</td>
                <td class="num">
                  ${
                    row.openQuarantine
                      ? html`<a href="/quarantine${queryOf({ account: account.id, stream: row.stream })}"
                          >${count(row.openQuarantine)}</a
                        >`
                      : '0'
                  }
                </td>
                <td class="num">
                  ${row.drift === null ? '–' : row.drift === 0 ? 'clean' : count(row.drift)}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
  </section>`;
}

/** The overview: each account's totals, then one row per stream. */
export async function overviewPage(context: ConsoleContext): Promise<Html> {
  const overviews: AccountOverview[] = [];
  for (const account of context.accounts) overviews.push(await readAccountOverview(context, account));
  const body = html`<p class="lead">
      ${context.accounts.length} account${context.accounts.length === 1 ? '' : 's'}; freshness by each
      stream's thresholds (hover a badge for why), calls against each account's daily budget.
    </p>
    ${overviews.map(accountSection)}`;
  return page({ path: '/', title: 'Overview', body });
}
