/**
 * Prints where a CPU profile's time went (`node --cpu-prof`, e.g. from `npm run bench --
 * --profile DIR`): the busy and idle time, then the functions with the most self time, and the
 * source files (packages and propsync's modules) with the most. Usage:
 *
 *   node bin/run-ts.mjs bench/profile-top.ts FILE.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script's URL belongs: its package, or propsync's own file (from src/). */
function placeOf(url: string): string {
  if (url === '') return '(native)';
  const inPackage = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (inPackage) return inPackage[1];
  const own = /\/(src\/.*|bin\/.*)$/.exec(url);
  if (own) return own[1].replace(/^src\//, '');
  return url.startsWith('node:') ? url : url.replace(/^.*\//, '');
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { top: { type: 'string', default: '25' } },
  });
  if (positionals.length !== 1) throw new Error('usage: bench/profile-top.ts FILE.cpuprofile [--top N]');
  const profile = JSON.parse(readFileSync(positionals[0], 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const byFunction = new Map<string, number>();
  const byPlace = new Map<string, number>();
  let total = 0;
  let idle = 0;
  profile.samples.forEach((id, index) => {
    const us = profile.timeDeltas[index] ?? 0;
    const frame = byId.get(id)!.callFrame;
    total += us;
    if (frame.functionName === '(idle)') {
      idle += us;
      return;
    }
    const place = placeOf(frame.url);
    const name = `${frame.functionName || '(anonymous)'} ${place}${frame.url ? `:${frame.lineNumber + 1}` : ''}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    byPlace.set(place, (byPlace.get(place) ?? 0) + us);
  });
  const top = Number(values.top);
  const seconds = (us: number) => `${(us / 1e6).toFixed(2)} s`;
  const share = (us: number) => `${((100 * us) / Math.max(1, total - idle)).toFixed(1)}%`;
  process.stdout.write(
    `profiled ${seconds(total)}: busy ${seconds(total - idle)}, idle ${seconds(idle)}\n\nself time by function (share of busy):\n`,
  );
  for (const [name, us] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`  ${seconds(us).padStart(8)} ${share(us).padStart(6)}  ${name}\n`);
  process.stdout.write('\nself time by file or package:\n');
  for (const [place, us] of [...byPlace].sort((a, b) => b[1] - a[1]).slice(0, top))
    process.stdout.write(`  ${seconds(us).padStart(8)} ${share(us).padStart(6)}  ${place}\n`);
}

main();
