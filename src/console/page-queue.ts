import type { ConsoleContext } from './context.js';
import { age, count, firstLine, timestamp } from './format.js';
import { html, type Html } from './html.js';
import { page, runLink } from './layout.js';
import { readQueue } from './read-queue.js';

/** The queue of `propsync worker`: jobs per account, dead letters, and the processes connected to it. */
export async function queuePage(context: ConsoleContext): Promise<Html> {
  const queue = await readQueue(context);
  const processes = html`<section>
    <h2>Processes on the queue now</h2>
    ${
      queue.processes.length === 0
        ? html`<p class="empty">No worker (or scheduler in queue mode) is connected to the queue.</p>`
        : html`<div class="scroll">
            <table class="processes">
              <thead>
                <tr>
                  <th>pid</th>
                  <th>address</th>
                  <th class="num">sessions</th>
                  <th>connected</th>
                  <th>last active</th>
                </tr>
              </thead>
              <tbody>
                ${queue.processes.map(
                  (process) =>
                    html`<tr>
                      <td>${process.pid}</td>
                      <td>${process.address ?? 'local socket'}</td>
                      <td class="num">${process.sessions}</td>
                      <td title="${timestamp(process.since)}">${age(process.since)}</td>
                      <td>${age(process.lastActive)}</td>
                    </tr>`,
                )}
              </tbody>
            </table>
          </div>`
    }
    <p class="note">
      Told by the sessions pg-boss opens (application name <code>propsync queue pid=N</code>): workers, and
      schedulers in queue mode.
    </p>
  </section>`;
  if (!queue.inUse)
    return page({
      path: '/queue',
      title: 'Queue',
      body: html`<p class="empty">
          The queue is not in use: no <code>propsync worker</code> or <code>propsync enqueue</code> has run on
          this warehouse (docs/operating.md#workers).
        </p>
        ${processes}`,
    });
  const body = html`<div class="scroll">
      <table class="queues">
        <thead>
          <tr>
            <th>account</th>
            <th>queue</th>
            <th class="num">waiting</th>
            <th class="num">running</th>
            <th class="num">completed</th>
            <th class="num">failed</th>
            <th class="num">dead letters</th>
          </tr>
        </thead>
        <tbody>
          ${queue.accounts.map(
            (row) =>
              html`<tr data-account="${row.account}">
                <td>${row.account}</td>
                <td><code>${row.queue}</code></td>
                <td class="num">${count(row.waiting)}</td>
                <td class="num">${count(row.running)}</td>
                <td class="num">${count(row.completed)}</td>
                <td class="num">${count(row.failed)}</td>
                <td class="num">
                  ${row.deadLetters ? html`<span class="badge bad">${count(row.deadLetters)}</span>` : '0'}
                </td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>
    <section>
      <h2>Dead letters</h2>
      ${
        queue.deadLetters.length === 0
          ? html`<p class="empty">None: every job ended within its retries.</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th>account</th>
                    <th>run</th>
                    <th>lane</th>
                    <th>since</th>
                    <th>error</th>
                  </tr>
                </thead>
                <tbody>
                  ${queue.deadLetters.map(
                    (letter) =>
                      html`<tr>
                        <td>${letter.account}</td>
                        <td>${runLink(letter.account, letter.runId)}</td>
                        <td>${letter.laneKey ?? '–'}</td>
                        <td title="${timestamp(letter.at)}">${age(letter.at)}</td>
                        <td class="error">${firstLine(letter.error)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    ${processes}`;
  return page({ path: '/queue', title: 'Queue', body });
}
