/**
 * Benchmark of the simulator's data set: generation time, record counts and peak memory for a
 * scale, then the time of one `advanceDataset` day and of a week.
 *
 *   node bin/run-ts.mjs bench/simulator-dataset.ts large [seed] [today YYYY-MM-DD]
 */
import { advanceDataset, generateDataset, SCALES, type Scale } from '../src/simulator/data/index.js';
import { expectedWarehouse } from '../src/simulator/data/truth.js';

const scale = (process.argv[2] ?? 'medium') as Scale;
if (!SCALES.includes(scale)) {
  console.error(`usage: node bin/run-ts.mjs bench/simulator-dataset.ts ${SCALES.join('|')} [seed] [today]`);
  process.exit(2);
}
const seed = Number(process.argv[3] ?? 1);
const today = process.argv[4] ?? '2025-03-15';

const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const peakRss = (): number => process.resourceUsage().maxRSS * 1024;

const t0 = performance.now();
const ds = generateDataset({ seed, scale, today });
const generateMs = performance.now() - t0;
const afterGenerate = {
  rss: process.memoryUsage().rss,
  heap: process.memoryUsage().heapUsed,
  peak: peakRss(),
};

const truth = expectedWarehouse(ds);
const units = ds.properties.reduce((s, p) => s + p._buildings.reduce((a, b) => a + b.units.length, 0), 0);
const byStatus: Record<string, number> = {};
for (const l of ds.leases) byStatus[l._status] = (byStatus[l._status] ?? 0) + 1;

const t1 = performance.now();
const day = advanceDataset(ds, 1);
const dayMs = performance.now() - t1;
const t2 = performance.now();
const week = advanceDataset(ds, 7);
const weekMs = performance.now() - t2;

console.log(
  JSON.stringify(
    {
      scale,
      seed,
      today,
      generateSeconds: +(generateMs / 1000).toFixed(2),
      memoryAfterGenerate: {
        rss: mb(afterGenerate.rss),
        heapUsed: mb(afterGenerate.heap),
        peakRss: mb(afterGenerate.peak),
      },
      counts: {
        properties: ds.properties.length,
        units,
        leases: truth.leases.count,
        leasesByStatus: byStatus,
        leaseIntervals: truth.lease_intervals.count,
        customers: truth.lease_customers.count,
        scheduledCharges: truth.lease_scheduled_charges.count,
        arTransactions: truth.ar_transactions.count,
        invoices: truth.invoices.count,
        invoiceLineItems: truth.invoice_line_items.count,
        invoicePayments: truth.invoice_payments.count,
        voidedPayments: truth.voided_payments.count,
      },
      advanceOneDaySeconds: +(dayMs / 1000).toFixed(2),
      advanceOneDayChanges: Object.fromEntries(Object.entries(day.changes).filter(([, n]) => n > 0)),
      advanceSevenDaysSeconds: +(weekMs / 1000).toFixed(2),
      advanceSevenDaysNewAr: week.changes.arTransactions,
      peakRssOverall: mb(peakRss()),
    },
    null,
    2,
  ),
);
