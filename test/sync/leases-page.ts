import leasesStream from '../../src/streams/leases/stream.js';
import type { PageToLoad } from '../../src/sync/load-page.js';
import type { CompletionAction } from '../../src/streams/types.js';

/** Page `pageNo` of leases of one test unit of account `default`, as a unit's pass hands it to `loadPage`. */
export function leasesPage(
  unit: { runId: number; unitId: number },
  pageNo: number,
  records: unknown[],
  options: { trackSeen?: boolean; onComplete?: CompletionAction[] } & Pick<PageToLoad, 'firstLoad'> = {},
): PageToLoad {
  return {
    account: 'default',
    stream: leasesStream,
    plan: {
      stream: 'leases',
      kind: 'test',
      unitKey: 'test',
      propertyIds: ['100001'],
      request: { method: leasesStream.method, params: {} },
      trackSeen: options.trackSeen ?? false,
      onComplete: options.onComplete ?? [],
    },
    ...unit,
    pageNo,
    records,
    version: 'r2',
    calls: 1,
    retries: 0,
    bytes: 0,
    nextPage: pageNo + 1,
    // A page with completion actions is its unit's last.
    complete: options.onComplete !== undefined,
    firstLoad: options.firstLoad,
  };
}
