import { personLoginSql } from './reader-role.js';
import { REFRESH_LOCK_TIMEOUT_MS } from './refresh.js';
import { keepingNote } from './definition.js';
import { personalClassOf } from './personal-columns.js';
import { REPORTING_SETTINGS, REPORTING_VIEWS } from './views.js';

/** The path of the generated document, from the top of the checkout. */
export const REPORTING_DOCS_PATH = 'docs/reporting.md';

/** `text` with its first letter in lower case. */
const lowerFirst = (text: string) => `${text.charAt(0).toLowerCase()}${text.slice(1)}`;

/** docs/reporting.md, generated from the views' definitions (src/reporting/definitions/). */
export function renderReportingDocs(): string {
  const lines: string[] = [
    '# Reporting views',
    '',
    '<!-- Generated from src/reporting/definitions/ by `node bin/run-ts.mjs src/reporting/write-docs.ts`; ' +
      'do not edit by hand. -->',
    '',
    'Schema `reporting` holds views that a BI tool (Metabase, Superset, Power BI, Tableau) can use without',
    "knowing the source's conventions: soft-deleted rows are left out, money is `numeric`, statuses,",
    'refunds, reversals, primary customers and current intervals are resolved. Every view and column',
    'carries the description below as a database comment, so the BI tool shows it too.',
    '',
    '## Connecting a BI tool',
    '',
    'Create a read-only role once (as a user that may create roles and owns schema `reporting`):',
    '',
    '    propsync grant-reader bi_reader                                   # NOLOGIN role for people',
    '    PROPSYNC_READER_PASSWORD=... propsync grant-reader metabase --login   # a login for the BI tool itself',
    '',
    'The role gets usage on `reporting`, select on its views, and default privileges so that views added',
    'by later migrations are readable too; `--base-tables` also grants select on the synced tables of',
    '`public`; `--account ID` (repeatable) limits it to those accounts (see [Accounts](#accounts)).',
    'Running it again is safe (with `--login` it sets the password again). To give a person a login in the role:',
    '',
    '```sql',
    ...personLoginSql('bi_reader'),
    '```',
    '',
    'Then point the BI tool at the warehouse: host and port of the Postgres server, the warehouse',
    'database, that user, schema `reporting`.',
    '',
    '## Accounts',
    '',
    "Every view starts with `account_id` (the configuration's `accounts[].id`: `default` in the one-account",
    "form, and for the rows of a warehouse upgraded from it) and `account_name` (the account's `name`, when",
    'the configuration gives one). Two accounts may use the same property, lease and invoice ids: the views',
    'match ids within an account only, and a dashboard that groups or joins by an id should take',
    '`account_id` along. `reporting.portfolio` shows the accounts side by side.',
    '',
    'A reader may be limited to some accounts:',
    '',
    '    propsync grant-reader north_bi --account north                            # account north only',
    '    propsync grant-reader analysts --account north --account south --base-tables',
    '',
    'Such a role, and every role or person that uses its privileges (`grant north_bi to alice`), sees no row',
    'of another account in any view of `reporting` nor, with `--base-tables`, in any table of `public`.',
    'Running `grant-reader` again without `--account` lifts the limit: every account, as for a role never',
    'limited. A role that uses the privileges of several limited roles sees the accounts of all of them; of a',
    'limited and an unlimited one, only the limited accounts. Superusers, roles with `BYPASSRLS` and the',
    "owner of the reporting layer (propsync's own role) see every account and cannot be limited.",
    '',
    "How: the views' queries live in schema `reporting_private`, which no reader may use. Each",
    '`reporting.<view>` is a security-barrier view over `reporting_private.<view>` that keeps the rows of',
    'the accounts the reader may see, looked up by `current_user` in `reporting_private.reader_accounts` (a',
    "barrier: a reader's own functions in a query never see the other rows first). That covers the",
    'materialized views, which cannot carry row-level security. Every table of `public` with an',
    '`account_id` carries row-level security with the same rule, for readers given the base tables;',
    "propsync's own role owns those tables and is not subject to it, so loading them costs the same.",
    '',
    '## Today and the time zone',
    '',
    '"Today" in a view is the day of the row\'s account, `reporting.today(account_id)`: the current day in the',
    "account's time zone (`accounts[].timeZone`, else the top-level `timeZone`). Views cannot read the",
    "configuration file, so the sync stores each account's zone at its end, in",
    '`reporting_private.account_settings`, with the day its source last reported (`source_today`). Two',
    'accounts an hour apart are a day apart at midnight: each ages its AR, counts its move-ins and its',
    'occupancy by its own day. A transaction posted at 23:30 local time on the last day of a month belongs',
    "to that month, and on that evening the account's today is still that last day, whatever the server's",
    'own time zone. An account no sync has written yet takes `reporting.today()`: '.concat(
      lowerFirst(REPORTING_SETTINGS.todayFunction),
    ),
    '(`reporting.settings`, the top-level `timeZone`).',
    '',
    "The sync also stores `source_day_offset`, the days the source's today ran ahead of the server's when",
    "the run started: 0 against the real service. A simulator's clock may run ahead (as in the demo). A run",
    "plans with at most the local tomorrow: when the source's today is further ahead, the run leaves the",
    "source's later days unread (`source_today_clamped` in the log; the run ends `incomplete`, exit 8, its",
    "`unread` naming the days) and the views' today runs at most one day ahead of the server's. This does",
    'not keep the views in step with the source: they are behind it by those days. What the source dated',
    "after the views' today (invoices posted, payments, move-ins) was not read, so no view counts it, and",
    'the views say nothing of it until a run reads those days, once the local day reaches them.',
    '',
    '## Refresh',
    '',
    'Where a plain view could not answer within a second on the `large` simulator data set, its rows are',
    'kept in a table of `reporting_private` (read through the view of the same name in `reporting`) and',
    'brought up to date at the end of every sync (`propsync sync`, the workers, the scheduler, the demo):',
    `${REPORTING_VIEWS.filter((view) => view.maintained || view.materialized)
      .map((view) => `\`${view.name}\``)
      .join(', ')}.`,
    'A run brings up to date only what it wrote, so that a night of many accounts costs in proportion to',
    'the accounts, not to their square (docs/benchmark.md, Scaling):',
    '',
    '- `ar_activity_monthly` and `vendor_spend_monthly` are kept group by group, in',
    '  `reporting_private.ar_activity_groups` (one row per account, property, post month and AR code) and',
    '  `reporting_private.vendor_spend_groups` (one row per account, post month, vendor and property, with',
    "  the vendor's name). Triggers on the tables they sum note which groups each statement wrote, COPY and",
    '  upserts included: for the AR activity, the (account, property, post month) of the ledger rows (a',
    '  lease deleted or revived: every group of its transactions); for the vendor spend, the (account, post',
    '  month) of the invoices whose month, vendor, type, reversal or deletion changed (a reversal: the month',
    '  of the invoice it reverses too) and of the invoices of the lines written (an update of what is due or',
    '  paid notes nothing).',
    '- `properties` and `occupancy_monthly` are kept account by account, in',
    '  `reporting_private.properties_rows` and `occupancy_monthly_rows`: triggers on properties, leases and',
    '  invoice lines (for the first), and on leases, units and the unit status history (for the second)',
    '  note the accounts each statement wrote, and an account whose day moved since its rows were made has',
    '  them made again too (the current month of `occupancy_monthly` is counted as of its `as_of_date`).',
    '',
    'The views name the account and the property when read, so names are always current. The end of each',
    'sync makes again only the noted groups and accounts, each view in one transaction, so readers see an',
    "account's old rows or its new ones, never a mix, and a BI user's open transaction blocks neither the",
    'refresh nor other readers; a full load notes everything, and the refresh after it makes it all once.',
    'A refresh waits for the runs that are writing what it reads to commit; a run writing meanwhile waits',
    'for the one view being made to commit (milliseconds: one account). A view whose lock cannot be had',
    `within ${REFRESH_LOCK_TIMEOUT_MS / 1000} s (another refresh or a maintenance command holds it) is`,
    'skipped with a warning (`reporting_refresh_skipped`), and the next sync makes it. The views are made',
    'side by side, each on a connection of its own (a materialized view once the views it reads are).',
    '',
    'Runs that end close together share one refresh: each counts a request',
    '(`reporting_private.reporting_refresh_requests`), and the run that holds the refresh lock (a Postgres',
    'advisory lock) refreshes again as long as requests came while it refreshed; the others end at once',
    '(`reporting_refresh_coalesced` in the log), what they wrote noted for it. `propsync reporting rebuild`',
    'makes every view again from the whole warehouse, for repair (rows changed by hand, a bug fixed).',
    '',
    '## Personal data',
    '',
    "These columns hold residents' personal data (docs/privacy.md): each carries a column of a table",
    'declared with `.personalData(class)` (its `from:` in the definition). A reader made by `propsync',
    'grant-reader ROLE` may not select them (nor `*` from their views: name the other columns), whatever the',
    'privacy policy; `grant-reader ROLE --personal` grants them. With `--base-tables`, the same holds for the',
    'personal columns of the base tables. Under `privacy: hash` or `drop` they hold the hash, or null.',
    '',
    ...REPORTING_VIEWS.flatMap((view) =>
      view.columns.flatMap((column) => {
        const kind = personalClassOf(column);
        return kind ? [`- \`reporting.${view.name}.${column.name}\` (${kind}, from \`${column.from}\`)`] : [];
      }),
    ),
    '',
    '## Adding or changing a view',
    '',
    'Each view is defined once, in one file of `src/reporting/definitions/` (`rent-roll.ts` for',
    '`reporting.rent_roll`): a `ReportingView` (src/reporting/definition.ts) with its `query` (the SQL of',
    '`reporting_private.<name>`, every relation schema-qualified, `account_id` first), its `purpose`, `notes`,',
    '`columns` with their meanings and an `example` (this document and the database comments are written from',
    'them), and `materialized` (with the grain `key` its unique index is made on) or `maintained` (a plain view',
    'over a table of sums kept group by group, whose table and triggers a versioned migration makes) when it is',
    'not a plain view. Words and SQL that several views share are in `definitions/shared.ts`. To add a view, add',
    'its file and its line in `definitions/index.ts` (the order of this document); a view that reads another',
    'names it `reporting_private.<view>`, and the order they are made in follows from that.',
    '',
    '`propsync migrate` applies the versioned migrations (`migrations/`, frozen history), then brings the views',
    'to their definitions, in one transaction: a view whose definition changed (its checksum, stored in',
    '`reporting_private.view_definitions`, differs) is dropped and made again, with every view that reads it,',
    'keeping their grants, the indexes made on them besides their grain, and the views of other schemas that',
    'read them; a view that did not change is left alone; a view whose definition is gone is dropped. A',
    'maintained view made again has all its groups summed again. The comments are written again every time.',
    "So a change of a view's SQL needs no migration: change its file, run `node bin/run-ts.mjs",
    'src/reporting/write-docs.ts` and `npm run schema:snapshot` (the committed `docs/schema.sql`, the whole',
    'schema in one file, shows the change in review), and the next `propsync migrate` makes it so. A',
    'materialized view made again is filled by its query at once, as its refresh would.',
    '',
    '## Views',
    '',
    ...REPORTING_VIEWS.map(
      (view) => `- [\`reporting.${view.name}\`](#reporting${view.name}): ${view.purpose}`,
    ),
    '',
  ];
  for (const view of REPORTING_VIEWS) {
    lines.push(`### \`reporting.${view.name}\``, '', view.purpose, '', view.notes, '');
    const keeping = keepingNote(view);
    if (keeping) lines.push(keeping, '');
    lines.push('| column | meaning |', '|---|---|');
    for (const column of view.columns) {
      const kind = personalClassOf(column);
      const personal = kind ? ` Personal data (${kind}): readers granted \`--personal\` only.` : '';
      lines.push(`| \`${column.name}\` | ${`${column.meaning}${personal}`.replace(/\|/g, '\\|')} |`);
    }
    lines.push('', 'Example:', '', '```sql', view.example, '```', '');
  }
  return `${lines.join('\n').trimEnd()}\n`;
}
