/** Calls served, by method and HTTP status, and the faults injected, by kind. */
export interface SimStats {
  total: number;
  /** `calls[method][status]`: method `-` when the request named none that could be read. */
  calls: Record<string, Record<string, number>>;
  faults: Record<string, number>;
}

/** Counts the calls a simulator served. */
export class CallStats {
  private total = 0;
  private readonly calls = new Map<string, Map<string, number>>();
  private readonly faults = new Map<string, number>();

  /** Counts one call of `method` answered with `status`. */
  record(method: string, status: number): void {
    this.total += 1;
    let byStatus = this.calls.get(method);
    if (!byStatus) this.calls.set(method, (byStatus = new Map()));
    byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
  }

  /** Counts one injected fault. */
  fault(kind: string): void {
    this.faults.set(kind, (this.faults.get(kind) ?? 0) + 1);
  }

  /** A plain copy of the counters. */
  snapshot(): SimStats {
    const calls: SimStats['calls'] = {};
    for (const [method, byStatus] of [...this.calls].sort(([a], [b]) => a.localeCompare(b))) {
      calls[method] = Object.fromEntries([...byStatus].sort(([a], [b]) => a.localeCompare(b)));
    }
    return {
      total: this.total,
      calls,
      faults: Object.fromEntries([...this.faults].sort(([a], [b]) => a.localeCompare(b))),
    };
  }
}
