import type { SyncObserver } from '../sync/types.js';

/**
 * One observer that passes every event to each given observer in order. An observer that
 * throws is ignored for that event: a display or a metric must never break the run it watches.
 */
export function combineObservers(...observers: (SyncObserver | undefined)[]): SyncObserver {
  const present = observers.filter((observer): observer is SyncObserver => observer !== undefined);
  const each = (call: (observer: SyncObserver) => void) => {
    for (const observer of present) {
      try {
        call(observer);
      } catch {
        // ignored, see above
      }
    }
  };
  return {
    onRunStart: (event) => each((observer) => observer.onRunStart?.(event)),
    onWorkUnitStart: (event) => each((observer) => observer.onWorkUnitStart?.(event)),
    onPage: (event) => each((observer) => observer.onPage?.(event)),
    onWorkUnitEnd: (event) => each((observer) => observer.onWorkUnitEnd?.(event)),
    onRunEnd: (summary) => each((observer) => observer.onRunEnd?.(summary)),
    onRunsAbandoned: (event) => each((observer) => observer.onRunsAbandoned?.(event)),
  };
}
