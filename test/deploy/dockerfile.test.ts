import { execFileSync } from 'node:child_process';
import { DockerfileParser } from 'dockerfile-ast';
import { validate, ValidationSeverity } from 'dockerfile-utils';
import { describe, expect, it } from 'vitest';
import { ROOT, readText } from './support.js';

const text = readText('Dockerfile');
const dockerfile = DockerfileParser.parse(text);
const instructions = dockerfile.getInstructions();
/** Instructions of the last stage: the image that ships. */
const runtime = instructions.slice(instructions.map((i) => i.getKeyword()).lastIndexOf('FROM'));
/** The stage a COPY takes its files from (`--from=`), or null for the build context. */
const copyStage = (copy: (typeof instructions)[number]) =>
  (copy as unknown as { getFlags(): { getName(): string; getValue(): string | null }[] })
    .getFlags()
    .find((flag) => flag.getName() === 'from')
    ?.getValue() ?? null;
const args = (keyword: string) =>
  runtime.filter((i) => i.getKeyword() === keyword).map((i) => i.getArgumentsContent() ?? '');

/** The first line of bin/propsync.mjs: the variables before node, and node's flags. */
const [, variables = '', flags = ''] =
  /^#!\/usr\/bin\/env -S ((?:[A-Z_]+=\S+ )*)node (.+)$/m.exec(readText('bin/propsync.mjs')) ?? [];
/** The first line's flags that NODE_OPTIONS refuses, which the entrypoint passes instead. */
const entrypointFlags = flags.split(' ').filter((flag) => flag.startsWith('--initial-old-space-size='));

describe('Dockerfile', () => {
  it('passes the Dockerfile linter (dockerfile-utils) with every check an error', () => {
    const all = ValidationSeverity.ERROR;
    const problems = validate(text, {
      deprecatedMaintainer: all,
      directiveCasing: all,
      emptyContinuationLine: all,
      instructionCasing: all,
      instructionCmdMultiple: all,
      instructionEntrypointMultiple: all,
      instructionHealthcheckMultiple: all,
      instructionJSONInSingleQuotes: all,
      instructionWorkdirRelative: all,
    });
    expect(problems.map((p) => `line ${p.range.start.line + 1}: ${p.message}`)).toEqual([]);
  });

  it('builds in stages and ships a pinned slim Node 20 as a non-root user', () => {
    const bases = instructions
      .filter((i) => i.getKeyword() === 'FROM')
      .map((i) => i.getArguments()[0].getValue());
    expect(bases.length).toBeGreaterThanOrEqual(2);
    for (const base of bases) expect(base).toMatch(/^node:20\.\d+\.\d+-[a-z]+-slim$/);
    // The same Node release as the machine that runs these tests and CI.
    expect(bases.at(-1)).toBe(`node:${process.versions.node}-bookworm-slim`);
    const user = args('USER');
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
    expect(args('ENTRYPOINT')).toHaveLength(1);
    expect(JSON.parse(args('ENTRYPOINT')[0])).toEqual(['node', ...entrypointFlags, '/app/bin/propsync.mjs']);
    expect(args('CMD')).toEqual(['["schedule"]']);
    expect(args('HEALTHCHECK').join(' ')).toMatch(/\/healthz/);
    expect(args('ENV').join(' ')).toMatch(/PROPSYNC_METRICS_HOST=0\.0\.0\.0/);
    for (const label of ['title', 'description', 'version', 'licenses'])
      expect(args('LABEL').join(' ')).toContain(`org.opencontainers.image.${label}=`);
    expect(text).toMatch(/npm ci --omit=dev --omit=optional/);
  });

  it("gives node the heap limits and malloc arenas of bin/propsync.mjs's first line, which `node FILE` does not read, as the npm scripts do", () => {
    expect(flags).toMatch(/--max-old-space-size=\d+/);
    expect(variables).toContain('MALLOC_ARENA_MAX=2');
    const env = args('ENV').join(' ');
    // NODE_OPTIONS takes the flags node allows there; the entrypoint's command line the others.
    const allowed = flags.split(' ').filter((flag) => !entrypointFlags.includes(flag));
    expect(env).toContain(`NODE_OPTIONS="${allowed.join(' ')}"`);
    for (const flag of entrypointFlags)
      expect(() =>
        execFileSync(process.execPath, ['-e', ''], {
          env: { ...process.env, NODE_OPTIONS: flag },
          stdio: 'pipe',
        }),
      ).toThrow(/not allowed in NODE_OPTIONS/);
    expect(() =>
      execFileSync(process.execPath, ['-e', ''], {
        env: { ...process.env, NODE_OPTIONS: allowed.join(' ') },
        stdio: 'pipe',
      }),
    ).not.toThrow();
    for (const variable of variables.trim().split(' ')) expect(env).toContain(variable);
    const scripts = (JSON.parse(readText('package.json')) as { scripts: Record<string, string> }).scripts;
    // `exec`: npm's child is node itself, so signals and the exit code pass through npm.
    for (const name of ['propsync', 'demo'])
      expect(scripts[name], name).toMatch(
        new RegExp(`^${variables}exec node ${flags} bin/propsync\\.mjs\\b`),
      );
  });

  it('copies into the runtime stage what `npm pack` ships, and production dependencies only', () => {
    const packed = JSON.parse(
      execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
        cwd: ROOT,
        encoding: 'utf8',
      }),
    )[0] as { files: { path: string }[] };
    // Destinations in the image (WORKDIR /app), each with its stage.
    const shipped = runtime
      .filter((i) => i.getKeyword() === 'COPY')
      .flatMap((copy) => {
        const parts = copy.getArguments().map((a) => a.getValue());
        const from = copyStage(copy);
        const target = parts.pop()!.replace(/^(\.\/?|\/app\/?)/, '');
        const folder = target === '' || target.endsWith('/') || parts.length > 1;
        return parts.map((source) => ({
          from,
          path: folder ? `${target.replace(/([^/])$/, '$1/')}${source.split('/').pop()}` : target,
        }));
      });
    const paths = shipped.map((s) => s.path.replace(/\/$/, ''));
    const covered = (file: string) => paths.some((path) => file === path || file.startsWith(`${path}/`));
    const missing = packed.files.map((f) => f.path).filter((file) => !covered(file));
    expect(missing, 'files of the package that the image lacks').toEqual([]);
    expect(shipped.find((s) => s.path === 'node_modules')?.from).toBe('deps');
    expect(shipped.find((s) => s.path === 'dist')?.from).toBe('build');
    expect(packed.files.some((f) => f.path.startsWith('dist/migrations/'))).toBe(true);
  });

  it("bundles in the build stage, whose npm ci keeps the optional dependencies (esbuild's binary for the machine)", () => {
    const start = instructions.findIndex(
      (i) => i.getKeyword() === 'FROM' && / AS build$/i.test(i.getArgumentsContent() ?? ''),
    );
    const end = instructions.findIndex((i, index) => index > start && i.getKeyword() === 'FROM');
    const stage = instructions.slice(start, end);
    const runs = stage.filter((i) => i.getKeyword() === 'RUN').map((i) => i.getArgumentsContent() ?? '');
    const install = runs.find((command) => command.startsWith('npm ci'));
    expect(install).toBeDefined();
    expect(install).not.toMatch(/--omit=(optional|dev)/);
    expect(runs.at(-1)).toBe('npm run build');
    // The build script and what it reads are copied in.
    const scripts = (JSON.parse(readText('package.json')) as { scripts: Record<string, string> }).scripts;
    const script = /^node (\S+)$/.exec(scripts.build)?.[1];
    const copied = stage
      .filter((i) => i.getKeyword() === 'COPY')
      .flatMap((i) =>
        i
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue().replace(/^\.\//, '')),
      );
    for (const path of [script, 'tsconfig.json', 'src', 'migrations', 'package-lock.json'])
      expect(copied, String(path)).toContain(path);
  });

  it('.dockerignore lets in only what the build copies', () => {
    const ignore = readText('.dockerignore')
      .split('\n')
      .filter((line) => line && !line.startsWith('#'));
    expect(ignore[0]).toBe('**');
    const allowed = ignore.slice(1).map((line) => line.replace(/^!/, '').replace(/\/\*\*$/, ''));
    const sources = instructions
      .filter((i) => i.getKeyword() === 'COPY' && copyStage(i) === null)
      .flatMap((i) =>
        i
          .getArguments()
          .slice(0, -1)
          .map((a) => a.getValue().replace(/^\.\//, '')),
      );
    expect(
      sources.filter((source) => !allowed.includes(source)),
      'copied but ignored',
    ).toEqual([]);
  });
});
