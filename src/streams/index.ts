import type { StreamName } from '../config/schema.js';
import { invoicesStream } from './invoices/index.js';
import { leasesStream } from './leases/index.js';
import type { StreamDefinition } from './types.js';

/** Every stream, by name. A new stream is one folder here plus a migration. */
export const STREAMS: Record<StreamName, StreamDefinition> = {
  leases: leasesStream,
  invoices: invoicesStream,
};

export type { StreamDefinition } from './types.js';
