/**
 * The benchmark of issue "Performance": `npm run bench -- [--scale small|medium|large[,...]]
 * [--format json|xml|both]`. What it runs and measures: docs/benchmark.md
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { from as copyFrom, to as copyTo } from 'pg-copy-streams';
import { Pool } from 'undici';
import { copyDatabase, dropDatabase, ensureDatabase, withDatabase } from '../src/warehouse/databases.js';
import { advanceOneDay, cli, shebangEnv, shebangFlags, startSimulator, stopSimulator } from './processes.js';
import { cpuMs, watchServerCpu, watchTreeMemory } from './proc-stats.js';

const SCALES = ['small', 'medium', 'large'] as const;
const FORMATS = ['json', 'xml'] as const;
type Scale = (typeof SCALES)[number];
type Format = (typeof FORMATS)[number];
type RunName = 'full' | 'rerun' | 'incremental';

/** Lease statuses of the live set (Applicant, Future, Current, Notice), as the leases stream reads them. */
const LIVE_STATUSES = [1, 3, 4, 5];
/** Invoice work-unit kinds that read a date window (the rest, `full`, re-reads a group whole). */
const INVOICE_WINDOW_KINDS = ['post_date', 'paid', 'voided'];

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Loaded into the runs whose requests are replayed: records each request the sync sends. */
const recorder = pathToFileURL(join(root, 'bench', 'record-requests.mjs')).href;
/** Runs whose requests are recorded and replayed (the full load's replay would only time the simulator). */
const REPLAYED: RunName[] = ['rerun', 'incremental'];

interface Row {
  scale: Scale;
  format: Format;
  run: RunName;
  wallMs: number;
  rows: number;
  records: number;
  /** CPU time of the sync's process tree (user + system). */
  cpuMs: number;
  /** CPU time the simulator spent meanwhile. */
  simCpuMs: number;
  /** CPU time Postgres's processes serving the bench's database spent meanwhile (from /proc). */
  pgCpuMs: number;
  /**
   * The run's own time (sync_runs, start to finish: no start-up, no reporting refresh), and the reporting
   * refresh's (from its log line).
   */
  runMs: number;
  refreshMs?: number;
  /** Wall time of the replay of the run's own requests, and its concurrency. */
  replay?: { ms: number; concurrency: number };
  /** Of a run measured several times (`--nightlies`): its ×replay, lowest and highest, and the runs. */
  spread?: { min: number; max: number; runs: number };
  copyRowsPerSecond?: number;
  /** Postgres's CPU for the plain COPY of the same rows (full load only). */
  copyPgCpuMs?: number;
  peakRssBytes: number;
  calls: number;
  floor?: number;
  load: number;
  status: string;
  /** The units stream's share of the run (its work units): calls, rows, records, summed unit time. */
  units?: StreamShare;
}

/** One stream's work units of a run, summed. */
interface StreamShare {
  calls: number;
  rows: number;
  records: number;
  bytes: number;
  ms: number;
}

function usage(message: string): never {
  process.stderr.write(
    `${message}\nusage: npm run bench -- [--scale small|medium|large[,...]] [--format json|xml|both] [--privacy keep|hash|drop] [--stream NAME[,...]] [--nightlies N] [--profile DIR] [--keep]\n`,
  );
  process.exit(2);
}

function options(): {
  scales: Scale[];
  formats: Format[];
  profile?: string;
  keep: boolean;
  privacy?: Privacy;
  streams: string[];
  nightlies: number;
} {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        scale: { type: 'string', default: 'medium' },
        format: { type: 'string', default: 'json' },
        profile: { type: 'string' },
        keep: { type: 'boolean', default: false },
        privacy: { type: 'string' },
        stream: { type: 'string', multiple: true, default: [] },
        nightlies: { type: 'string', default: '3' },
      },
    }));
  } catch (error) {
    usage((error as Error).message);
  }
  const scales = values.scale.split(',').map((s) => s.trim());
  for (const scale of scales)
    if (!SCALES.includes(scale as Scale)) usage(`--scale: unknown scale '${scale}'`);
  const formats = values.format === 'both' ? [...FORMATS] : [values.format];
  for (const format of formats)
    if (!FORMATS.includes(format as Format)) usage(`--format: unknown format '${format}'`);
  const nightlies = Number(values.nightlies);
  if (!Number.isInteger(nightlies) || nightlies < 1)
    usage(`--nightlies: expected a whole number from 1, got '${values.nightlies}'`);
  if (values.privacy !== undefined && !PRIVACY_MODES.includes(values.privacy as Privacy))
    usage(`--privacy: expected one of ${PRIVACY_MODES.join(', ')}, got '${values.privacy}'`);
  return {
    privacy: values.privacy as Privacy | undefined,
    scales: scales as Scale[],
    formats: formats as Format[],
    profile: values.profile === undefined ? undefined : resolve(values.profile),
    keep: values.keep,
    streams: values.stream.flatMap((s) => s.split(',').map((name) => name.trim())).filter(Boolean),
    nightlies,
  };
}

const note = (line: string) => process.stderr.write(`[bench] ${line}\n`);

/** `--privacy MODE`: every personal class kept, hashed or dropped (`privacy.personal`), to price the policy. */
const PRIVACY_MODES = ['keep', 'hash', 'drop'] as const;
type Privacy = (typeof PRIVACY_MODES)[number];

/** The options before the command that put the runs under a privacy policy: a configuration file of its own. */
function privacyArgs(privacy: Privacy | undefined, dir: string, name: string): string[] {
  if (!privacy) return [];
  const file = join(dir, `${name}.privacy.yaml`);
  writeFileSync(file, `privacy:\n  hashKeyEnv: PROPSYNC_BENCH_PRIVACY_KEY\n  personal: ${privacy}\n`);
  return ['--config', file];
}

interface ChildRun {
  code: number;
  wallMs: number;
  peakRssBytes: number;
  /** CPU time of the child and of every process below it that was waited for (user + system). */
  cpuMs: number;
  output: string;
}

/**
 * Runs `bin/propsync.mjs ARGS` as an operator does (its first line starts node with the heap
 * limits) and measures its wall time, the peak RSS of its whole process tree (from /proc),
 * so that a process it started would count, and its CPU time (this process's children's
 * times, which the kernel adds when a child is waited for: the commands run one at a time, and
 * the simulator, still running, is not in them); the simulator and this process are not in it.
 */
async function runCli(
  args: string[],
  env: NodeJS.ProcessEnv,
  outputFile: string,
  nodeFlags: string[] = [],
): Promise<ChildRun> {
  const out = createWriteStream(outputFile);
  const cpuBefore = cpuMs('self', 'children');
  const started = performance.now();
  // Flags node refuses in NODE_OPTIONS (--cpu-prof) go on its command line, after the first line's.
  const child = nodeFlags.length
    ? spawn(process.execPath, [...shebangFlags(), ...nodeFlags, cli, ...args], {
        env: { ...env, ...shebangEnv() },
        stdio: ['ignore', 'pipe', 'pipe'],
      })
    : spawn(cli, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.pipe(out, { end: false });
  child.stderr!.pipe(out, { end: false });
  const memory = child.pid === undefined ? undefined : watchTreeMemory(child.pid);
  const code = await new Promise<number>((done, reject) => {
    child.once('error', reject);
    child.once('close', (exitCode) => done(exitCode ?? 1));
  });
  const wallMs = performance.now() - started;
  const peakKb = memory?.stop() ?? 0;
  const cpu = cpuMs('self', 'children') - cpuBefore;
  await new Promise((done) => out.end(done));
  return { code, wallMs, peakRssBytes: peakKb * 1024, cpuMs: cpu, output: readFileSync(outputFile, 'utf8') };
}

/** The run history's counters of the runs after `afterRunId`. */
async function runsAfter(
  db: pg.Client,
  afterRunId: number,
): Promise<{
  lastRunId: number;
  rows: number;
  records: number;
  calls: number;
  bytes: number;
  ms: number;
  status: string;
}> {
  const { rows } = await db.query<{
    run_id: string;
    status: string;
    rows: number;
    records: number;
    calls: number;
    bytes: string;
    ms: number;
  }>(
    `select run_id, status, (rows_inserted + rows_updated + rows_unchanged)::int as rows, records, calls, bytes,
       (extract(epoch from finished_at - started_at) * 1000)::float8 as ms
     from sync_runs where run_id > $1 order by run_id`,
    [afterRunId],
  );
  if (rows.length === 0) throw new Error('the sync left no run in sync_runs');
  return {
    lastRunId: Number(rows[rows.length - 1].run_id),
    rows: rows.reduce((sum, row) => sum + row.rows, 0),
    records: rows.reduce((sum, row) => sum + row.records, 0),
    calls: rows.reduce((sum, row) => sum + row.calls, 0),
    bytes: rows.reduce((sum, row) => sum + Number(row.bytes), 0),
    ms: rows.reduce((sum, row) => sum + row.ms, 0),
    status: [...new Set(rows.map((row) => row.status))].join('+'),
  };
}

/** The work units of `stream` in the runs after `afterRunId`, summed (their time: start to finish of each). */
async function streamShare(db: pg.Client, afterRunId: number, stream: string): Promise<StreamShare> {
  const { rows } = await db.query<StreamShare>(
    `select coalesce(sum(calls), 0)::int as calls, coalesce(sum(records), 0)::int as records,
            coalesce(sum(rows_inserted + rows_updated + rows_unchanged), 0)::int as rows,
            coalesce(sum(bytes), 0)::float8 as bytes,
            coalesce(sum(extract(epoch from finished_at - started_at) * 1000), 0)::float8 as ms
       from sync_work_units where run_id > $1 and stream = $2`,
    [afterRunId, stream],
  );
  return rows[0];
}

/**
 * The fewest calls the next day's incremental could spend and still see every change of the day:
 *
 *   1                                              getProperties (today and the properties)
 * + Σ properties   max(1, ⌈live leases / per_page⌉)   one page per page-full of each property's
 *                                                  live set (statuses 1, 3, 4, 5), counted in the
 *                                                  warehouse after the run (= the source's live set)
 * + Σ invoice windows  max(1, ⌈records / per_page⌉)   each date window the plan read (post date,
 *                                                  paid, voided, per property group and chunk), by
 *                                                  the records it returned; a group whose periodic
 *                                                  full re-read fell on that day counts 1 page for
 *                                                  each of its three windows (a lower bound)
 *
 * Move-out windows, the by-id look-ups of disappeared leases and full refreshes are what the
 * plan spends above this floor.
 */
async function incrementalFloor(db: pg.Client, runId: number): Promise<number> {
  const { rows: leases } = await db.query<{ pages: number }>(
    `with props as (
       select distinct property_ids[1] as property_id, per_page from sync_work_units
       where run_id = $1 and stream = 'leases')
     select greatest(1, ceil(count(l.lease_id)::numeric / p.per_page))::int as pages
     from props p
     left join leases l on l.property_id = p.property_id and l.deleted_at is null and l.lease_status_type_id = any($2::smallint[])
     group by p.property_id, p.per_page`,
    [runId, LIVE_STATUSES],
  );
  const { rows: invoices } = await db.query<{ kind: string; records: number; per_page: number }>(
    `select kind, records, per_page from sync_work_units where run_id = $1 and stream = 'invoices'`,
    [runId],
  );
  const invoicePages = invoices.reduce(
    (sum, unit) =>
      sum +
      (INVOICE_WINDOW_KINDS.includes(unit.kind)
        ? Math.max(1, Math.ceil(unit.records / unit.per_page))
        : INVOICE_WINDOW_KINDS.length),
    0,
  );
  return 1 + leases.reduce((sum, row) => sum + row.pages, 0) + invoicePages;
}

/** The source tables the sync loaded: every table with the sync's bookkeeping columns. */
async function sourceTables(db: pg.Client): Promise<string[]> {
  const { rows } = await db.query<{ table_name: string }>(
    `select table_name from information_schema.columns
     where table_schema = 'public' and column_name in ('raw', 'last_run_id')
     group by table_name having count(*) = 2 order by table_name`,
  );
  return rows.map((row) => row.table_name);
}

/**
 * Copies every row of the loaded tables out (untimed, to a file), then times `COPY ... FROM
 * STDIN` of those rows into `LIKE ... INCLUDING ALL` copies (same columns, defaults, keys and
 * indexes), one table after the other on one connection (server process `backend`, whose CPU the
 * COPYs spent is read from /proc). The copies are dropped afterwards.
 */
async function timeCopy(
  db: pg.Client,
  dir: string,
  backend: number,
): Promise<{ rows: number; ms: number; pgCpuMs: number }> {
  let rows = 0;
  let ms = 0;
  let pgCpuMs = 0;
  for (const table of await sourceTables(db)) {
    const copy = `bench_copy_${table}`;
    const file = join(dir, `${table}.copy`);
    await pipeline(db.query(copyTo(`copy ${table} to stdout`)), createWriteStream(file));
    await db.query(`create table ${copy} (like ${table} including all)`);
    const started = performance.now();
    const cpuBefore = cpuMs(backend, 'own');
    const into = db.query(copyFrom(`copy ${copy} from stdin`));
    await pipeline(createReadStream(file), into);
    ms += performance.now() - started;
    pgCpuMs += cpuMs(backend, 'own') - cpuBefore;
    rows += into.rowCount;
    await db.query(`drop table ${copy}`);
    rmSync(file);
  }
  return { rows, ms, pgCpuMs };
}

/** How long the reporting refresh after the run took, from its log line (`reporting_refreshed`). */
function refreshMs(output: string): number | undefined {
  const line = output.split('\n').find((text) => text.includes('"event":"reporting_refreshed"'));
  if (!line) return undefined;
  try {
    return (JSON.parse(line) as { durationMs?: number }).durationMs;
  } catch {
    return undefined;
  }
}

/** One request the sync sent, as bench/record-requests.mjs wrote it. */
interface RecordedRequest {
  origin: string;
  method: string;
  path: string;
  headers: [string, string][];
  body: string | null;
  inFlight: number;
}

/**
 * Sends the recorded requests again, in their order, from as many workers as the sync had
 * requests in flight at most (each worker takes the next request when its reply has been read),
 * over a keep-alive pool of as many connections, and reads and drops each reply: the time the
 * simulator and the wire need for the run's replies, its floor. Throws on a reply other than 200.
 */
async function replay(
  file: string,
): Promise<{ ms: number; bytes: number; calls: number; concurrency: number }> {
  const requests = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as RecordedRequest);
  if (requests.length === 0) throw new Error(`no request was recorded in ${file}`);
  const concurrency = Math.max(...requests.map((request) => request.inFlight));
  const pool = new Pool(requests[0].origin, { connections: concurrency });
  let next = 0;
  let bytes = 0;
  let retries = 0;
  /** One request: its reply read and dropped; its bytes. */
  const send = async (request: RecordedRequest): Promise<number> => {
    const reply = await pool.request({
      method: request.method as 'POST',
      path: request.path,
      headers: request.headers.flat(),
      body: request.body === null ? undefined : Buffer.from(request.body, 'base64'),
    });
    let received = 0;
    for await (const chunk of reply.body) received += (chunk as Buffer).length;
    if (reply.statusCode !== 200)
      throw new Error(`the replay of ${request.path} answered ${reply.statusCode}`);
    return received;
  };
  const worker = async () => {
    while (next < requests.length) {
      const request = requests[next++];
      // A connection the busy simulator reset is tried again, as the sync's client does.
      for (let attempt = 1; ; attempt++) {
        try {
          const received = await send(request);
          bytes += received;
          break;
        } catch (error) {
          if (attempt >= 3 || (error as Error).message.includes('answered')) throw error;
          retries += 1;
        }
      }
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
    if (retries > 0) note(`the replay of ${file} tried ${retries} request(s) again after a connection error`);
    return { ms: performance.now() - started, bytes, calls: requests.length, concurrency };
  } finally {
    await pool.close();
  }
}

/** Benchmarks one scale in one format, adding each run's row to `rows` as soon as it is measured. */
async function benchOne(
  scale: Scale,
  format: Format,
  adminUrl: string,
  dir: string,
  rows: Row[],
  {
    profile,
    privacy,
    streams,
    nightlies,
  }: { profile?: string; privacy?: Privacy; streams: string[]; nightlies: number },
): Promise<void> {
  const password = randomBytes(12).toString('hex');
  const policy = privacyArgs(privacy, dir, `propsync_bench_${process.pid}_${scale}_${format}`);
  if (privacy) note(`${scale} ${format}: every personal field under privacy.personal: ${privacy}`);
  if (streams.length > 0) note(`${scale} ${format}: only the streams ${streams.join(', ')}`);
  const only = streams.flatMap((name) => ['--stream', name]);
  const name = `propsync_bench_${process.pid}_${scale}_${format}`;
  const url = withDatabase(adminUrl, name);
  const started = performance.now();
  const sim = await startSimulator(scale, password);
  note(
    `${scale} ${format}: simulator ready in ${((performance.now() - started) / 1000).toFixed(1)} s at ${sim.url}`,
  );
  await dropDatabase(adminUrl, name);
  await ensureDatabase(adminUrl, name);
  let db = new pg.Client({ connectionString: url });
  /** The warehouse as the day before's runs left it, for each nightly after the first to start from. */
  const dayBefore = `${name}_day_before`;
  const env: NodeJS.ProcessEnv = {
    ...commandEnv(),
    DATABASE_URL: url,
    PROPSYNC_API_URL: sim.url,
    PROPSYNC_API_USERNAME: 'bench',
    PROPSYNC_API_PASSWORD: password,
    PROPSYNC_FORMAT: format,
    // The bench measures throughput, not the budget: three runs of `large` in one day exceed the default.
    PROPSYNC_DAILY_CALL_BUDGET: '1000000',
    // The simulator's days (from TODAY on) are the source's today, trusted as a real source's
    // clock is: ignored as skewed, the local day would put the nightly invoice windows past every
    // change of the simulated day.
    PROPSYNC_MAX_CLOCK_SKEW_HOURS: '1000000',
    PROPSYNC_BENCH_PRIVACY_KEY: randomBytes(32).toString('hex'),
  };
  try {
    const migrated = await runCli([...policy, 'migrate'], env, join(dir, `${name}.migrate.log`));
    if (migrated.code !== 0) throw new Error(`propsync migrate exited ${migrated.code}:\n${migrated.output}`);
    await db.connect();
    let backend = await backendOf(db);
    let lastRunId = 0;
    /** Runs `run` and measures it (and replays it, and so on): its row. */
    const measure = async (run: RunName, nightly?: number): Promise<Row> => {
      const load = loadavg()[0];
      // A nightly's number tells its files and its line apart from the other nightlies'.
      const tag = nightly === undefined ? run : `${run}-${nightly}`;
      const log = join(dir, `${name}.${tag}.log`);
      const record = join(dir, `${name}.${tag}.requests`);
      // The recorder of the run's requests; with --profile, a CPU profile of each thread.
      const runEnv = REPLAYED.includes(run)
        ? {
            ...env,
            PROPSYNC_BENCH_RECORD: record,
            NODE_OPTIONS: `${env.NODE_OPTIONS ?? ''} --import=${recorder}`.trim(),
          }
        : env;
      const profiling = profile
        ? ['--cpu-prof', `--cpu-prof-dir=${join(profile, `${scale}-${format}-${tag}`)}`]
        : [];
      const simCpuBefore = cpuMs(sim.child.pid!, 'own');
      const server = watchServerCpu(name, backend);
      const child = await runCli([...policy, 'sync', ...only], runEnv, log, profiling);
      const pgCpuMs = server.stop();
      const simCpuMs = cpuMs(sim.child.pid!, 'own') - simCpuBefore;
      // 3: done, with records quarantined; the rows are still counted and the run still measured.
      if (child.code !== 0 && child.code !== 3)
        throw new Error(
          `propsync sync (${scale} ${format} ${run}) exited ${child.code}:\n${child.output.slice(-4000)}`,
        );
      if (child.code === 3) note(`${scale} ${format} ${run}: records were quarantined (exit 3)`);
      const units = await streamShare(db, lastRunId, 'units');
      const runs = await runsAfter(db, lastRunId);
      lastRunId = runs.lastRunId;
      const row: Row = {
        scale,
        format,
        run,
        wallMs: child.wallMs,
        rows: runs.rows,
        records: runs.records,
        runMs: runs.ms,
        refreshMs: refreshMs(child.output),
        cpuMs: child.cpuMs,
        simCpuMs,
        pgCpuMs,
        peakRssBytes: child.peakRssBytes,
        calls: runs.calls,
        load,
        status: runs.status,
        units,
      };
      if (REPLAYED.includes(run)) {
        // The simulator's state is the one the run read: reading changes nothing in it.
        const replayed = await replay(record);
        row.replay = { ms: replayed.ms, concurrency: replayed.concurrency };
        // The bytes differ by a few in a thousand: replies carry the time they were made.
        if (replayed.calls !== runs.calls || Math.abs(replayed.bytes - runs.bytes) > runs.bytes / 100) {
          note(
            `${scale} ${format} ${run}: the replay sent ${replayed.calls} calls for ${replayed.bytes} bytes, the run counted ${runs.calls} calls, ${runs.bytes} bytes`,
          );
        }
        rmSync(record);
      }
      if (run === 'full') {
        const copy = await timeCopy(db, dir, backend);
        row.copyRowsPerSecond = copy.rows / (copy.ms / 1000);
        row.copyPgCpuMs = copy.pgCpuMs;
        if (copy.rows !== runs.rows)
          note(`${scale} ${format}: COPY moved ${copy.rows} rows, the full load wrote ${runs.rows}`);
      }
      if (run === 'incremental') row.floor = await incrementalFloor(db, lastRunId);
      const replayed = row.replay ? `, replay ${(row.replay.ms / 1000).toFixed(1)} s` : '';
      note(
        `${scale} ${format} ${tag}: ${(row.wallMs / 1000).toFixed(1)} s${replayed}, ${row.rows} rows, ${row.calls} calls, CPU ${(row.cpuMs / 1000).toFixed(1)} s, Postgres CPU ${(row.pgCpuMs / 1000).toFixed(1)} s, ${mb(row.peakRssBytes)}`,
      );
      return row;
    };
    rows.push(await measure('full'));
    rows.push(await measure('rerun'));
    await advanceOneDay(sim.url);
    // The nightly, from the same warehouse into the same simulated day each time (the simulator's
    // state is not changed by reading it): its ×replay moves from one run to the next by more than
    // most changes move it, so the row is the median run's, with the spread beside it.
    const nightlyRows: Row[] = [];
    const firstRunId = lastRunId;
    for (let nightly = 1; nightly <= nightlies; nightly++) {
      if (nightlies > 1) {
        await db.end();
        // A database copied from another needs no one else connected to either.
        if (nightly === 1) await copyDatabase(adminUrl, name, dayBefore);
        else await copyDatabase(adminUrl, dayBefore, name);
        db = new pg.Client({ connectionString: url });
        await db.connect();
        backend = await backendOf(db);
        lastRunId = firstRunId;
      }
      nightlyRows.push(await measure('incremental', nightly));
    }
    rows.push(medianRun(nightlyRows));
  } finally {
    await db.end().catch(() => undefined);
    await stopSimulator(sim.child);
    await dropDatabase(adminUrl, name);
    await dropDatabase(adminUrl, dayBefore);
  }
}

/** The process id of a client's connection on the server, whose CPU is not the runs'. */
async function backendOf(db: pg.Client): Promise<number> {
  return Number((await db.query<{ pid: number }>('select pg_backend_pid() as pid')).rows[0].pid);
}

/** Of runs of the same work: the one whose ×replay is the median, with the spread of all of them. */
function medianRun(runs: Row[]): Row {
  const ratio = (row: Row) => row.wallMs / row.replay!.ms;
  const sorted = [...runs].sort((a, b) => ratio(a) - ratio(b));
  const median = sorted[Math.floor((sorted.length - 1) / 2)];
  if (runs.length === 1) return median;
  return { ...median, spread: { min: ratio(sorted[0]), max: ratio(sorted.at(-1)!), runs: runs.length } };
}

/**
 * The bench's environment for the command: the source is plain HTTP on this machine, so an extra
 * certificate bundle, which node reads and parses at every start (90 ms for the system's), is left
 * out, as bench/pairs.ts and bench/startup.ts leave it.
 */
function commandEnv(): NodeJS.ProcessEnv {
  const { NODE_EXTRA_CA_CERTS: _certificates, ...inherited } = process.env;
  return inherited;
}

/**
 * `propsync --help`, run `runs` times after one warm-up: the median wall and the largest peak
 * RSS, the cost of starting the command at all.
 */
async function timeHelp(dir: string, runs = 7): Promise<{ wallMs: number; peakRssBytes: number }> {
  await runCli(['--help'], commandEnv(), join(dir, 'help.log'));
  const measured: ChildRun[] = [];
  for (let i = 0; i < runs; i++) {
    const run = await runCli(['--help'], commandEnv(), join(dir, 'help.log'));
    if (run.code !== 0) throw new Error(`propsync --help exited ${run.code}:\n${run.output}`);
    measured.push(run);
  }
  const walls = measured.map((run) => run.wallMs).sort((a, b) => a - b);
  return {
    wallMs: walls[Math.floor(walls.length / 2)],
    peakRssBytes: Math.max(...measured.map((run) => run.peakRssBytes)),
  };
}

const mb = (bytes: number) => `${Math.round(bytes / 1_048_576)} MB`;
const rate = (perSecond: number) =>
  perSecond >= 1000 ? `${(perSecond / 1000).toFixed(1)}k` : perSecond.toFixed(0);

/**
 * One markdown table. COPY rows/s and the ratio (sync rows/s over COPY rows/s) are shown on the
 * full load only: the rerun and the incremental mostly confirm unchanged rows without writing
 * them, which COPY has no counterpart for. `in run` is the run's own time (sync_runs: no start-up,
 * no reporting refresh), `refresh` the reporting refresh after it. `replay` is the wall time of
 * the run's own requests sent again (see `replay`), `×replay` the command's wall over it, `run
 * ×replay` the run's own time over it. `CPU` is the sync's process tree,
 * `CPU/1k` its CPU per 1,000 source records, `sim CPU` the simulator's meanwhile, `PG CPU` the
 * server processes' of the bench's database meanwhile, `COPY PG CPU` theirs for the plain COPY of
 * the same rows and `PG ×COPY` the one over the other (full load only). `floor` is the
 * incremental's floor of calls (see above).
 */
function table(rows: Row[]): string {
  const header = [
    'scale',
    'format',
    'run',
    'wall',
    'in run',
    'refresh',
    'rows',
    'rows/s',
    'COPY rows/s',
    'ratio',
    'replay',
    '×replay',
    'run ×replay',
    'records',
    'CPU',
    'CPU/1k rec',
    'sim CPU',
    'PG CPU',
    'COPY PG CPU',
    'PG ×COPY',
    'peak RSS',
    'calls',
    'floor',
    'load',
  ];
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const lines = rows.map((row) => {
    const perSecond = row.rows / (row.wallMs / 1000);
    return [
      row.scale,
      row.format,
      row.status === 'succeeded' ? row.run : `${row.run} (${row.status})`,
      seconds(row.wallMs),
      seconds(row.runMs),
      row.refreshMs === undefined ? '' : seconds(row.refreshMs),
      String(row.rows),
      rate(perSecond),
      row.copyRowsPerSecond ? rate(row.copyRowsPerSecond) : '',
      row.copyRowsPerSecond ? (perSecond / row.copyRowsPerSecond).toFixed(2) : '',
      row.replay ? `${seconds(row.replay.ms)} (×${row.replay.concurrency})` : '',
      row.replay ? `${(row.wallMs / row.replay.ms).toFixed(2)}${spreadText(row)}` : '',
      row.replay ? (row.runMs / row.replay.ms).toFixed(2) : '',
      String(row.records),
      seconds(row.cpuMs),
      row.records ? `${(row.cpuMs / row.records).toFixed(3)} s` : '',
      seconds(row.simCpuMs),
      seconds(row.pgCpuMs),
      row.copyPgCpuMs === undefined ? '' : seconds(row.copyPgCpuMs),
      row.copyPgCpuMs ? (row.pgCpuMs / row.copyPgCpuMs).toFixed(2) : '',
      mb(row.peakRssBytes),
      String(row.calls),
      row.floor === undefined ? '' : String(row.floor),
      row.load.toFixed(2),
    ];
  });
  const format = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [format(header), format(header.map(() => '---')), ...lines.map(format)].join('\n');
}

/** A run's spread of ×replay over several runs, as ` (1.90–2.31, 3 runs)`; none for one run. */
function spreadText(row: Row): string {
  return row.spread
    ? ` (${row.spread.min.toFixed(2)}–${row.spread.max.toFixed(2)}, ${row.spread.runs} runs)`
    : '';
}

/** The units stream's share of each run: its calls, rows, records, reply bytes and work units' time. */
function unitsTable(rows: Row[]): string {
  const lines = rows.map((row) => [
    row.scale,
    row.format,
    row.run,
    String(row.units?.calls ?? 0),
    String(row.units?.rows ?? 0),
    String(row.units?.records ?? 0),
    mb(row.units?.bytes ?? 0),
    `${((row.units?.ms ?? 0) / 1000).toFixed(2)} s`,
  ]);
  const header = [
    'units stream',
    'format',
    'run',
    'calls',
    'rows',
    'records (properties)',
    'reply bytes',
    'unit time',
  ];
  const format = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [format(header), format(header.map(() => '---')), ...lines.map(format)].join('\n');
}

async function main(): Promise<void> {
  // The workers' scaling (issue 23) is a bench of its own: bench/scaling.ts.
  if (process.argv.includes('--scaling')) return (await import('./scaling.js')).benchScaling();
  const { scales, formats, profile, keep, privacy, streams, nightlies } = options();
  const adminUrl = withDatabase(
    process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    'postgres',
  );
  const dir = mkdtempSync(join(tmpdir(), 'propsync-bench-'));
  const rows: Row[] = [];
  let help: { wallMs: number; peakRssBytes: number } | undefined;
  try {
    help = await timeHelp(dir);
    for (const scale of scales)
      for (const format of formats)
        await benchOne(scale, format, adminUrl, dir, rows, { profile, privacy, streams, nightlies });
  } catch (error) {
    note(`the children's output is kept in ${dir}`);
    throw error;
  } finally {
    // What was measured is printed even when a later run failed.
    if (rows.length) {
      process.stdout.write(`${table(rows)}\n\n${unitsTable(rows)}\n`);
      process.stdout.write(
        `${new Date().toISOString().slice(0, 10)}, ${cpus().length} cores, node ${process.version}; ` +
          'load = 1-minute load average when the run started; wall, CPU and peak RSS are of the `propsync sync` command (every process it started, summed); ' +
          'replay (×concurrency) = its own requests sent again and the replies read and dropped\n',
      );
    }
    if (help) {
      process.stdout.write(
        `propsync --help: ${(help.wallMs / 1000).toFixed(2)} s (median of 7), peak RSS ${mb(help.peakRssBytes)}\n`,
      );
    }
  }
  if (keep) note(`the children's output is kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}

main().catch((error: Error) => {
  process.stderr.write(`bench failed: ${error.stack ?? error.message}\n`);
  process.exit(1);
});
