import { PAGE_SIZE, type ConsoleContext } from './context.js';
import { age, count, duration, firstLine, timestamp } from './format.js';
import { html, queryOf, type Html } from './html.js';
import { badge, page, pageNumber, pager, plural, select, toneOf } from './layout.js';
import { readRunPoints, readRuns, readRunVocabulary, type RunFilter } from './read-runs.js';

/** The filter a query string asks for (unknown values simply match nothing). */
export function runFilterOf(params: URLSearchParams): RunFilter {
  const value = (name: string) => params.get(name)?.trim() || undefined;
  return { account: value('account'), stream: value('stream'), kind: value('kind'), status: value('status') };
}

/** The run history with its filters, its chart (drawn by /assets/console.js from /runs/chart.json) and its pages. */
export async function runsPage(context: ConsoleContext, params: URLSearchParams): Promise<Html> {
  const filter = runFilterOf(params);
  const current = pageNumber(params);
  const [{ runs, more }, vocabulary] = [
    await readRuns(context, filter, current, PAGE_SIZE),
    await readRunVocabulary(context),
  ];
  const filterQuery = { ...filter };
  const body = html`<form class="filters" method="get" action="/runs">
      ${select(
        'account',
        'account',
        context.accounts.map((account) => account.id),
        filter.account,
      )}
      ${select(
        'stream',
        'stream',
        context.streams.map((stream) => stream.name),
        filter.stream,
      )}
      ${select('kind', 'kind', vocabulary.kinds, filter.kind)}
      ${select('status', 'status', vocabulary.statuses, filter.status)}
      <button type="submit">Filter</button>
    </form>
    <section class="chart">
      <h2>Last 30 days: duration and records of each run, coloured by outcome</h2>
      <div id="runs-chart" class="charts" data-src="/runs/chart.json${queryOf(filterQuery)}">
        <p class="loading">Loading the chart…</p>
      </div>
    </section>
    <div class="scroll">
      <table class="runs">
        <thead>
          <tr>
            <th>run</th>
            <th>account</th>
            <th>kind</th>
            <th>streams</th>
            <th>status</th>
            <th>started</th>
            <th class="num">duration</th>
            <th class="num">records</th>
            <th class="num">rows</th>
            <th class="num">calls</th>
            <th>error</th>
          </tr>
        </thead>
        <tbody>
          ${runs.map(
            (run) =>
              html`<tr>
                <td><a href="/runs/${encodeURIComponent(run.account)}/${run.runId}">#${run.runId}</a></td>
                <td>${run.account}</td>
                <td>${run.kind}</td>
                <td>${run.streams.join(', ')}</td>
                <td>
                  ${badge(run.status)}${
                    run.unitsFailed
                      ? html` <span class="note">${plural(run.unitsFailed, 'unit')} failed</span>`
                      : ''
                  }
                </td>
                <td title="${timestamp(run.startedAt)}">${age(run.startedAt)}</td>
                <td class="num">${run.finishedAt ? duration(run.durationMs) : '–'}</td>
                <td class="num">${count(run.records)}</td>
                <td class="num">${count(run.rows)}</td>
                <td class="num">${count(run.calls)}</td>
                <td class="error">${firstLine(run.error, 120)}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    ${runs.length === 0 ? html`<p class="empty">No run matches these filters.</p>` : ''}
    ${pager((n) => `/runs${queryOf({ ...filterQuery, page: n || null })}`, current, more)}`;
  return page({
    path: '/runs',
    title: 'Runs',
    body,
    scripts: ['/assets/uPlot.iife.min.js', '/assets/console.js'],
  });
}

/** The chart's data: the matching runs of the last 30 days as columns, for uPlot. */
export async function runsChartData(context: ConsoleContext, params: URLSearchParams): Promise<unknown> {
  const points = await readRunPoints(context, runFilterOf(params));
  const statuses = [...new Set(points.map((point) => point.status))].sort();
  return {
    tones: Object.fromEntries(statuses.map((status) => [status, toneOf(status)])),
    at: points.map((point) => point.at),
    seconds: points.map((point) => point.seconds),
    records: points.map((point) => point.records),
    status: points.map((point) => point.status),
  };
}
