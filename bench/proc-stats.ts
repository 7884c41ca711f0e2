/**
 * What the benches read of processes from /proc: CPU times, resident memory of a process tree,
 * and the CPU of the Postgres server processes serving one database.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second, the unit of CPU times in /proc. */
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Fields of /proc/PID/stat from the state on (field 3 is index 0), or undefined once the process ended. */
function statFields(pid: number | 'self'): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold anything.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/**
 * CPU milliseconds (user + system) of a process itself (`own`), or of its children that ended and were
 * waited for (`children`).
 */
export function cpuMs(pid: number | 'self', whose: 'own' | 'children'): number {
  const fields = statFields(pid);
  return fields ? cpuOf(fields, whose) : 0;
}

/** CPU milliseconds of `statFields`' fields: utime, stime are fields 14, 15; cutime, cstime 16, 17. */
function cpuOf(fields: string[], whose: 'own' | 'children' = 'own'): number {
  const first = whose === 'own' ? 14 - 3 : 16 - 3;
  return ((Number(fields[first]) + Number(fields[first + 1])) * 1000) / CLOCK_TICKS;
}

/** The pids of `root` and of every process below it, from the parent pid in each /proc/PID/stat. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = statFields(Number(entry));
    if (!fields) continue; // ended meanwhile
    const ppid = Number(fields[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** A process's resident set now and at its peak in kB (VmRSS, VmHWM); zeros once it has ended. */
function residentKb(pid: number): { now: number; peak: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return {
      now: Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0),
      peak: Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0),
    };
  } catch {
    return { now: 0, peak: 0 };
  }
}

/**
 * Samples the memory of the process tree under `root` every 100 ms until stopped, and returns
 * its peak in kB: the largest sum of the tree's resident sets, or one process's own peak
 * (VmHWM, which sees between samples) when that is larger.
 */
export function watchTreeMemory(root: number): { stop(): number } {
  let peakKb = 0;
  const sample = () => {
    const sizes = processTree(root).map(residentKb);
    peakKb = Math.max(
      peakKb,
      sizes.reduce((sum, size) => sum + size.now, 0),
      ...sizes.map((size) => size.peak),
    );
  };
  const timer = setInterval(sample, 100);
  return {
    stop() {
      clearInterval(timer);
      return peakKb;
    },
  };
}

/**
 * The server processes (backends, autovacuum workers) that serve database `name`, by their process title
 * (`postgres: [cluster: ]user database host(port) activity`), but not `except` (the bench's own connection).
 */
function serverProcesses(name: string, except: number): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === except) continue;
    let title: string;
    try {
      title = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    if (title.startsWith('postgres: ') && title.split(/[\s\0]+/).includes(name)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * Samples the CPU time of the server processes serving database `name` (but `except`) until stopped: every
 * 20 ms the ones known, every 100 ms a search of /proc for new ones. Returns the CPU they spent since the
 * start: a process that ends loses at most its last 20 ms. Checkpointer and WAL writer are the whole
 * server's, shared with other databases, and not counted.
 */
export function watchServerCpu(name: string, except: number): { stop(): number } {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const read = (pid: number) => {
    const fields = statFields(pid);
    if (fields) last.set(pid, cpuOf(fields));
  };
  const search = () => {
    for (const pid of serverProcesses(name, except))
      if (!last.has(pid)) {
        read(pid);
        // A process there at the start counts from then; one that started since, from its start.
        if (!started) first.set(pid, last.get(pid) ?? 0);
      }
  };
  let started = false;
  search();
  started = true;
  let tick = 0;
  const timer = setInterval(() => {
    if (tick++ % 5 === 0) search();
    for (const pid of last.keys()) read(pid);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      for (const pid of last.keys()) read(pid);
      let total = 0;
      for (const [pid, ms] of last) total += ms - (first.get(pid) ?? 0);
      return total;
    },
  };
}
