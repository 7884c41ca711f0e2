import type { ConsoleContext } from './context.js';
import { age, count, duration, timestamp } from './format.js';
import { html, queryOf, type Html } from './html.js';
import { badge, page, plural, someOf } from './layout.js';
import { readRun, UNITS_SHOWN, type UnitRow } from './read-run.js';
import { unitTimeline } from './timeline.js';

function unitRow(unit: UnitRow): Html {
  return html`<tr class="${unit.error ? 'failed' : ''}" data-unit="${unit.workUnitId}">
    <td>#${unit.workUnitId}</td>
    <td>${unit.stream}</td>
    <td>${unit.kind}</td>
    <td>${someOf(unit.propertyIds)}</td>
    <td>${unit.window ?? '–'}</td>
    <td>${badge(unit.status)}</td>
    <td class="num">
      ${unit.startedAt && unit.finishedAt ? duration(unit.finishedAt.getTime() - unit.startedAt.getTime()) : '–'}
    </td>
    <td class="num">${count(unit.pages)}</td>
    <td class="num">${count(unit.calls)}</td>
    <td class="num">${count(unit.records)}</td>
    <td class="num">${count(unit.rows)}</td>
    <td class="num">${count(unit.quarantined)}</td>
    <td class="error">${unit.error ?? ''}</td>
  </tr>`;
}

function failedUnit(unit: UnitRow): Html {
  return html`<li data-unit="${unit.workUnitId}">
    <strong>#${unit.workUnitId} ${unit.stream} ${unit.kind}</strong> ${unit.window ?? ''}, properties
    ${unit.propertyIds.join(', ')}, after ${plural(unit.pages, 'page')}:
    <span class="error">${unit.error ?? unit.status}</span>
  </li>`;
}

/** A run: its numbers, its units as a timeline (lanes as rows), the failed units, its queued lanes. */
export async function runPage(context: ConsoleContext, account: string, runId: number): Promise<Html | null> {
  const detail = await readRun(context, account, runId);
  if (!detail) return null;
  const { run, units, lanes } = detail;
  const failed = units.filter((unit) => unit.error || /fail/.test(unit.status));
  const body = html`<dl class="totals">
      <div>
        <dt>account</dt>
        <dd>${run.account}</dd>
      </div>
      <div>
        <dt>kind</dt>
        <dd>${run.kind}</dd>
      </div>
      <div>
        <dt>status</dt>
        <dd>${badge(run.status)}</dd>
      </div>
      <div>
        <dt>streams</dt>
        <dd>${run.streams.join(', ')}</dd>
      </div>
      <div>
        <dt>started</dt>
        <dd title="${timestamp(run.startedAt)}">${timestamp(run.startedAt)} (${age(run.startedAt)})</dd>
      </div>
      <div>
        <dt>duration</dt>
        <dd>
          ${run.finishedAt ? duration(run.durationMs) : `running, last heartbeat ${age(run.heartbeatAt)}`}
        </dd>
      </div>
      <div>
        <dt>units</dt>
        <dd>
          ${count(units.length + detail.moreUnits)}${
            run.unitsFailed ? html`, ${badge('failed', `${run.unitsFailed} failed`)}` : ''
          }
        </dd>
      </div>
      <div>
        <dt>records · rows · calls</dt>
        <dd>${count(run.records)} · ${count(run.rows)} · ${count(run.calls)}</dd>
      </div>
      <div>
        <dt>quarantined</dt>
        <dd>
          ${
            run.quarantined
              ? html`<a href="/quarantine${queryOf({ account: run.account })}">${count(run.quarantined)}</a>`
              : '0'
          }
        </dd>
      </div>
      ${
        run.propertyIds
          ? html`<div>
              <dt>properties asked</dt>
              <dd>${run.propertyIds.join(', ')}</dd>
            </div>`
          : ''
      }
    </dl>
    ${run.error ? html`<pre class="error-block">${run.error}</pre>` : ''}
    <section>
      <h2>Timeline</h2>
      <div class="scroll">${unitTimeline(units, run.startedAt, run.finishedAt)}</div>
      ${
        detail.moreUnits
          ? html`<p class="note">
              The first ${count(UNITS_SHOWN)} units are shown; ${count(detail.moreUnits)} more are in
              sync_work_units.
            </p>`
          : ''
      }
    </section>
    ${
      failed.length
        ? html`<section class="failed-units">
            <h2>Failed units</h2>
            <ul>
              ${failed.map(failedUnit)}
            </ul>
          </section>`
        : ''
    }
    ${
      lanes.length
        ? html`<section>
            <h2>Lanes on the queue</h2>
            <div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th>lane</th>
                    <th>stream</th>
                    <th>status</th>
                    <th>ended</th>
                    <th>error</th>
                  </tr>
                </thead>
                <tbody>
                  ${lanes.map(
                    (lane) =>
                      html`<tr>
                        <td>${lane.laneKey}</td>
                        <td>${lane.stream}</td>
                        <td>${badge(lane.status)}</td>
                        <td>${age(lane.finishedAt)}</td>
                        <td class="error">${lane.error ?? ''}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
          </section>`
        : ''
    }
    <section>
      <h2>Units</h2>
      <div class="scroll">
        <table class="units">
          <thead>
            <tr>
              <th>unit</th>
              <th>stream</th>
              <th>kind</th>
              <th>properties</th>
              <th>window</th>
              <th>status</th>
              <th class="num">duration</th>
              <th class="num">pages</th>
              <th class="num">calls</th>
              <th class="num">records</th>
              <th class="num">rows</th>
              <th class="num">quarantined</th>
              <th>error</th>
            </tr>
          </thead>
          <tbody>
            ${units.map(unitRow)}
          </tbody>
        </table>
      </div>
    </section>
    <p><a href="/runs${queryOf({ account: run.account })}">← runs of ${run.account}</a></p>`;
  return page({ path: '/runs', title: `Run #${run.runId}`, body });
}
