import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PERSONAL_CLASSES } from '../../src/warehouse/schema.js';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { EXAMPLE_COMMAND, exampleWithStreams } from '../../src/config/example.js';
import { ENVIRONMENT_KEYS, loadConfig } from '../../src/config/load.js';
import { scratchFolder } from '../support/cli.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const EXAMPLE = 'config/propsync.example.yaml';
const exampleText = readFileSync(resolve(ROOT, EXAMPLE), 'utf8');
const readme = readFileSync(resolve(ROOT, 'README.md'), 'utf8');
const CONFIGURATION_DOC = 'docs/configuration.md';
const configurationDoc = readFileSync(resolve(ROOT, CONFIGURATION_DOC), 'utf8');

/** Keys the example fills with an illustration rather than the default (they have none). */
const REQUIRED = ['database.url', 'source.url', 'source.username', 'source.password'];
/**
 * What the loaded configuration derives rather than reads: the one-account form's account, the warnings, the
 * privacy mode of each class.
 */
const DERIVED = ['accounts', 'warnings', ...PERSONAL_CLASSES.map((name) => `privacy.modes.${name}`)];

/** Every leaf of a configuration tree, by dotted path. */
function leaves(value: unknown, path: string[] = []): Map<string, unknown> {
  const out = new Map<string, unknown>();
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, child] of Object.entries(value))
      for (const [p, v] of leaves(child, [...path, key])) out.set(p, v);
  } else {
    out.set(path.join('.'), value);
  }
  return out;
}

/** The example file as propsync loads it (the password comes from the environment, as it should). */
const example = loadConfig({
  cwd: ROOT,
  configPath: EXAMPLE,
  env: { PROPSYNC_API_PASSWORD: 'x'.repeat(12) },
});

describe(EXAMPLE, () => {
  it('is a valid configuration once the password is set', () => {
    expect(example.source.password).toBe('x'.repeat(12));
    expect(example.database.url).toMatch(/^postgres:/);
  });

  it('shows every key of the schema, each at its default', () => {
    const empty = scratchFolder();
    const minimal = loadConfig({
      cwd: empty.dir,
      env: {
        DATABASE_URL: 'postgres://a@127.0.0.1/b',
        PROPSYNC_API_URL: 'https://a.example.com',
        PROPSYNC_API_USERNAME: 'u',
        PROPSYNC_API_PASSWORD: 'p',
      },
    });
    empty.remove();
    const schemaKeys = new Map([...leaves(minimal)].filter(([key]) => !DERIVED.includes(key)));
    const exampleKeys = leaves(parse(exampleText));
    const missing = [...schemaKeys.keys()].filter(
      (key) => !exampleKeys.has(key) && key !== 'source.password',
    );
    expect(missing, `keys of the schema that ${EXAMPLE} does not show`).toEqual([]);
    // The password is shown commented out: it belongs in PROPSYNC_API_PASSWORD.
    expect(exampleText).toMatch(/^\s+# password: /m);
    const wrongDefaults = [...schemaKeys]
      .filter(([key]) => !REQUIRED.includes(key))
      .filter(([key, value]) => JSON.stringify(leaves(example).get(key)) !== JSON.stringify(value))
      .map(
        ([key, value]) =>
          `${key}: example ${JSON.stringify(leaves(example).get(key))}, default ${JSON.stringify(value)}`,
      );
    expect(wrongDefaults, `keys whose value in ${EXAMPLE} is not the default`).toEqual([]);
  });

  it('shows a commented accounts: example that loads, each secret from the variable it names', () => {
    const lines = exampleText.split('\n');
    const start = lines.indexOf('# accounts:');
    expect(start, 'a line "# accounts:"').toBeGreaterThan(0);
    const end = lines.findIndex((line, index) => index > start && !line.startsWith('#   '));
    const block = lines.slice(start, end).map((line) => line.slice(2));
    const folder = scratchFolder({
      'accounts.yaml': ['database:', '  url: postgres://a@127.0.0.1/b', ...block].join('\n'),
    });
    try {
      const config = loadConfig({
        cwd: folder.dir,
        configPath: 'accounts.yaml',
        env: {
          NORTH_API_PASSWORD: 'n'.repeat(12),
          SOUTH_API_KEY: 's'.repeat(12),
          SOUTH_PRIVACY_KEY: 'k'.repeat(40),
        },
      });
      expect(config.accounts.map((account) => [account.id, account.source.auth.type])).toEqual([
        ['north', 'basic'],
        ['south', 'apikey'],
      ]);
      expect(config.accounts.map((account) => account.privacy?.modes.name)).toEqual([undefined, 'hash']);
      expect(config.warnings).toEqual([]);
    } finally {
      folder.remove();
    }
  });

  it('shows the settings of every stream as the stream manifests generate them', () => {
    expect(
      exampleText === exampleWithStreams(exampleText),
      `${EXAMPLE} is out of date: run \`${EXAMPLE_COMMAND}\``,
    ).toBe(true);
  });

  it('names the environment variable of every key that has one', () => {
    const unnamed = ENVIRONMENT_KEYS.map((key) => key.env).filter(
      (env) => !exampleText.includes(`Env: ${env}`),
    );
    expect(unnamed).toEqual([]);
  });
});

describe(CONFIGURATION_DOC, () => {
  it('documents every environment variable', () => {
    const undocumented = ENVIRONMENT_KEYS.map((key) => key.env).filter(
      (env) => !configurationDoc.includes(`\`${env}\``),
    );
    expect(undocumented).toEqual([]);
  });
});

describe('README.md', () => {
  it('starts with the two set-up commands', () => {
    const top = readme.split('\n').slice(0, 25).join('\n');
    expect(top).toContain('npm ci && npm run demo');
    expect(top).toContain('npm ci && npm test');
  });
});
