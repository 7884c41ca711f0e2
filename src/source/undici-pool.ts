/**
 * undici's keep-alive pool, its request API and its errors, from the modules that hold them,
 * not from undici's index (which loads fetch, WebSocket, the caches and the mocks besides).
 * Why: docs/source-client.md#transport
 */
import api from 'undici/lib/api/index.js';
import undiciErrors from 'undici/lib/core/errors.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import Pool from 'undici/lib/dispatcher/pool.js';

// What undici's index does: the request API on every dispatcher.
Object.assign(Dispatcher.prototype, api);

export { Pool, undiciErrors };
export type { Dispatcher } from 'undici';
