import { PAGE_SIZE, type ConsoleContext } from './context.js';
import { age, count, timestamp } from './format.js';
import { html, queryOf, type Html } from './html.js';
import { page, pageNumber, pager, runLink, select } from './layout.js';
import {
  readQuarantine,
  readQuarantineGroups,
  type QuarantineFilter,
  type QuarantineRow,
} from './read-quarantine.js';

/**
 * The command that reads an entry's record again once the source has fixed it: a full read of its
 * property (docs/operating.md#quarantined-records-and-their-replay); `--account` with several.
 */
export function replayCommand(
  entry: Pick<QuarantineRow, 'account' | 'stream' | 'propertyId'>,
  accounts: number,
): string {
  const account = accounts > 1 ? ` --account ${entry.account}` : '';
  const property = entry.propertyId ? ` --property ${entry.propertyId}` : '';
  return `propsync sync${account} --stream ${entry.stream}${property} --full`;
}

/** Open quarantine entries, grouped by account, stream and field, then listed with how to replay them. */
export async function quarantinePage(context: ConsoleContext, params: URLSearchParams): Promise<Html> {
  const value = (name: string) => params.get(name)?.trim() || undefined;
  const filter: QuarantineFilter = {
    account: value('account'),
    stream: value('stream'),
    field: value('field'),
  };
  const current = pageNumber(params);
  const groups = await readQuarantineGroups(context, { account: filter.account, stream: filter.stream });
  const { entries, more } = await readQuarantine(context, filter, current, PAGE_SIZE);
  const fields = [...new Set(groups.map((group) => group.field))].sort();
  const accounts = context.accounts.length;
  const body = html`<p class="lead">
      Records that failed validation wait here, raw in the quarantine table (not shown: it may hold residents'
      data). A later run that loads a record resolves its entry; once the source has fixed it, the command
      beside each entry reads it again.
    </p>
    <form class="filters" method="get" action="/quarantine">
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
      ${select('field', 'field', fields, filter.field)}
      <button type="submit">Filter</button>
    </form>
    <section>
      <h2>Open entries by account, stream and field</h2>
      ${
        groups.length === 0
          ? html`<p class="empty">No open quarantine entry.</p>`
          : html`<div class="scroll">
              <table class="groups">
                <thead>
                  <tr>
                    <th>account</th>
                    <th>stream</th>
                    <th>field</th>
                    <th class="num">open</th>
                    <th>newest</th>
                  </tr>
                </thead>
                <tbody>
                  ${groups.map(
                    (group) =>
                      html`<tr>
                        <td>${group.account}</td>
                        <td>${group.stream}</td>
                        <td>
                          <a href="/quarantine${queryOf({ ...group, open: null, newest: null })}"
                            >${group.field}</a
                          >
                        </td>
                        <td class="num">${count(group.open)}</td>
                        <td title="${timestamp(group.newest)}">${age(group.newest)}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>
    <section>
      <h2>Entries</h2>
      ${
        entries.length === 0
          ? html`<p class="empty">No open entry matches these filters.</p>`
          : html`<div class="scroll">
              <table class="entries">
                <thead>
                  <tr>
                    <th>entry</th>
                    <th>account</th>
                    <th>stream</th>
                    <th>record id</th>
                    <th>property</th>
                    <th>window</th>
                    <th class="num">page</th>
                    <th>field</th>
                    <th>reason</th>
                    <th>run</th>
                    <th>replay</th>
                  </tr>
                </thead>
                <tbody>
                  ${entries.map(
                    (entry) =>
                      html`<tr data-entry="${entry.quarantineId}">
                        <td title="${timestamp(entry.createdAt)}">#${entry.quarantineId}</td>
                        <td>${entry.account}</td>
                        <td>${entry.stream}</td>
                        <td>${entry.recordKey ?? html`<em>none</em>`}</td>
                        <td>${entry.propertyId ?? '–'}</td>
                        <td>${entry.window ?? '–'}</td>
                        <td class="num">${entry.page ?? '–'}</td>
                        <td>${entry.field}</td>
                        <td class="error">${entry.reason}</td>
                        <td>${runLink(entry.account, entry.runId)}</td>
                        <td><code>${replayCommand(entry, accounts)}</code></td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
      ${pager((n) => `/quarantine${queryOf({ ...filter, page: n || null })}`, current, more)}
    </section>`;
  return page({ path: '/quarantine', title: 'Quarantine', body });
}
