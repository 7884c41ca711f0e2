import { getHeapStatistics } from 'node:v8';
import { Option, type Command } from 'commander';
import {
  AREA_METHODS,
  FAULT_SPEC_HELP,
  SCALES as SIM_SCALES,
  type Scale as SimScale,
} from '../../simulator/usage.js';
import { isDay } from '../../dates/calendar.js';
import { ExitError, EXIT, type ExitCode } from '../../app/exit-codes.js';
import { messageOf } from '../../log/errors.js';

/** Port `propsync simulate` listens on unless told otherwise. */
export const DEFAULT_SIMULATOR_PORT = 8080;
/** Credentials the simulator accepts when neither the options nor the environment name one. */
export const DEFAULT_SIMULATOR_USERNAME = 'propsync';
export const DEFAULT_SIMULATOR_PASSWORD = 'propsync-simulator';

interface SimulateOptions {
  port: string;
  host: string;
  scale: SimScale;
  seed: string;
  today?: string;
  username?: string;
  password?: string;
  apiKey?: string;
  org?: string;
  rateLimit: string;
  faults?: string;
}

/** Heap the large data set needs, in MB (some 860 MB are in use once it is generated). */
const LARGE_HEAP_MB = 1200;

/**
 * The large data set does not fit under the heap limit that the `propsync` command gives node
 * (its first line; NODE_OPTIONS in the image): refuse at once, saying how to start it.
 */
function checkHeapFor(scale: SimScale): void {
  const limitMb = Math.round(getHeapStatistics().heap_size_limit / 1_048_576);
  if (scale !== 'large' || limitMb >= LARGE_HEAP_MB) return;
  throw new ExitError(
    `--scale large holds some ${LARGE_HEAP_MB} MB in memory, more than this node may use ` +
      `(${limitMb} MB: the propsync command limits its heap for syncs); ` +
      `start node with a larger one: node --max-old-space-size=2048 ${process.argv[1]} simulate --scale large ...`,
  );
}

function integer(name: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ExitError(`--${name} must be an integer from ${min} to ${max}, got '${value}'`);
  }
  return Number(value);
}

/**
 * `propsync simulate`: serves the source API from a seeded data set until SIGINT or SIGTERM,
 * with Basic auth, the API-key gateway (`--api-key`, `--org`), or both.
 * Prints exactly `listening on http://HOST:PORT` on stdout once it accepts requests.
 */
export function registerSimulate(program: Command, done: (code: ExitCode) => void): void {
  program
    .command('simulate')
    .description(
      'serve a simulated property-management API (seeded data set, moving clock, faults on demand)',
    )
    .option('--port <port>', 'port to listen on; 0 picks a free one', String(DEFAULT_SIMULATOR_PORT))
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .addOption(new Option('--scale <scale>', 'size of the data set').choices(SIM_SCALES).default('small'))
    .option('--seed <n>', 'seed of the data set, its quirks and its faults', '1')
    .option('--today <YYYY-MM-DD>', "the data set's first day (default: today in the source's time zone)")
    .option(
      '--username <name>',
      `the accepted user name (default: $PROPSYNC_API_USERNAME, else ${DEFAULT_SIMULATOR_USERNAME})`,
    )
    .option(
      '--password <secret>',
      'the accepted password (default: $PROPSYNC_API_PASSWORD, else the built-in simulator password)',
    )
    .option(
      '--api-key <key>',
      'serve the API-key gateway at /ext/orgs/<org>/v1/<area>, accepting this X-Api-Key (with --org)',
    )
    .option('--org <org>', "the gateway's org (with --api-key)")
    .option(
      '--rate-limit <spec>',
      'default (150/minute,1000/hour,15000/day), off, or LIMITS such as 20/2s,500/hour',
      'default',
    )
    .option('--faults <spec>', 'faults to inject (grammar below); none by default')
    .addHelpText(
      'after',
      [
        '',
        `Serves POST /api/v1/<area> and /api/<area> (${Object.keys(AREA_METHODS).join(', ')}) with Basic auth,`,
        'POST /_sim/advance {"days": N} (moves the clock, applies N days of activity) and GET /_sim/stats.',
        `Credentials default to $PROPSYNC_API_USERNAME / $PROPSYNC_API_PASSWORD, ` +
          `else ${DEFAULT_SIMULATOR_USERNAME} / ${DEFAULT_SIMULATOR_PASSWORD}.`,
        'With --api-key KEY --org ORG it serves the API-key gateway too: POST /ext/orgs/ORG/v1/<area>, header',
        'X-Api-Key: KEY, the envelope as a JSON body; the same data, limits and faults. Given no Basic',
        'credential (no --username, --password or $PROPSYNC_API_USERNAME/PASSWORD), it serves the gateway alone.',
        'Stops on SIGINT or SIGTERM (exit 0).',
        '',
        'LIMITS: COUNT/WINDOW items separated by commas; WINDOW an optional number and s, m, h or d',
        '(second, minute, hour, day), for example 150/minute,1000/hour or 20/2s.',
        '',
        FAULT_SPEC_HELP,
        '',
        'Examples:',
        '  $ propsync simulate',
        '  $ propsync simulate --port 0 --scale medium --seed 7 --today 2024-06-15 --username demo --password demo-pw',
        '  $ node --max-old-space-size=2048 bin/propsync.mjs simulate --scale large --rate-limit off',
        '  $ propsync simulate --api-key test-key-123 --org acme',
        "  $ propsync simulate --rate-limit 20/2s,500/hour --faults '500@0.05,slow@0.02:ms=5000,seed=3'",
      ].join('\n'),
    )
    .action(async (options: SimulateOptions) => {
      const port = integer('port', options.port, 0, 65535);
      const seed = integer('seed', options.seed, 0, Number.MAX_SAFE_INTEGER);
      if (options.today !== undefined && !isDay(options.today)) {
        throw new ExitError(`--today must be a date YYYY-MM-DD, got '${options.today}'`);
      }
      checkHeapFor(options.scale);
      if ((options.apiKey === undefined) !== (options.org === undefined))
        throw new ExitError('--api-key and --org go together: the gateway needs both');
      if (options.apiKey === '' || options.org === '')
        throw new ExitError('--api-key and --org must not be empty');
      const gateway =
        options.apiKey !== undefined && options.org !== undefined
          ? { apiKey: options.apiKey, org: options.org }
          : undefined;
      // Basic auth as ever (its defaults included), unless only the gateway is asked for.
      const basicGiven = [
        options.username,
        options.password,
        process.env.PROPSYNC_API_USERNAME,
        process.env.PROPSYNC_API_PASSWORD,
      ].some((value) => value !== undefined);
      const basic =
        gateway && !basicGiven
          ? undefined
          : {
              username: options.username ?? process.env.PROPSYNC_API_USERNAME ?? DEFAULT_SIMULATOR_USERNAME,
              password: options.password ?? process.env.PROPSYNC_API_PASSWORD ?? DEFAULT_SIMULATOR_PASSWORD,
            };
      // Loaded here, not at the top: the data generator is heavy and other commands never need it.
      const { datasetSummary, startSimulator } = await import('../../simulator/index.js');
      let sim: Awaited<ReturnType<typeof startSimulator>>;
      try {
        sim = await startSimulator({
          port,
          host: options.host,
          scale: options.scale,
          seed,
          today: options.today,
          ...basic,
          ...gateway,
          rateLimit: options.rateLimit,
          faults: options.faults,
        });
      } catch (error) {
        const message = messageOf(error);
        if (/^invalid (fault|rate limit|today)/.test(message)) throw new ExitError(message);
        throw error;
      }
      const stopped = new Promise<void>((resolve) => {
        const stop = () => {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          resolve();
        };
        process.on('SIGINT', stop);
        process.on('SIGTERM', stop);
      });
      const { dataset } = sim;
      const served = [basic ? `user ${basic.username}` : '', gateway ? `gateway org ${gateway.org}` : '']
        .filter(Boolean)
        .join(', ');
      process.stderr.write(`simulating ${datasetSummary(dataset)}; ${served}\n`);
      process.stdout.write(`listening on ${sim.url}\n`);
      await stopped;
      await sim.close();
      done(EXIT.ok);
    });
}
