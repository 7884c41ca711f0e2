import type { RowsOf } from '../warehouse/schema.js';
import type { StreamCode, StreamDefinition, StreamManifest, StreamSettings } from './types.js';

/**
 * A stream, whole: its manifest's declarations (name, method, record name, tables) with its
 * code, typed by the manifest's settings and tables. A folder's `stream.ts` is one call of this.
 */
export function defineStream<M extends StreamManifest>(
  manifest: M,
  code: StreamCode<StreamSettings<M>, RowsOf<M['tables']>>,
): StreamDefinition<M['name']> {
  const { plan, planBackfill, normalize, recordKey } = code;
  // Rows of declared tables are rows by table name, which TypeScript cannot see for any `M`.
  return {
    name: manifest.name,
    method: manifest.method,
    entity: manifest.entity,
    tables: manifest.tables,
    verify: manifest.verify,
    personal: manifest.personal,
    plan,
    planBackfill,
    normalize: normalize as StreamCode['normalize'],
    recordKey,
  };
}
