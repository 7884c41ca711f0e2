/**
 * undici's keep-alive pool, its request API and its errors, from the modules that hold them,
 * not from undici's index (which loads fetch, WebSocket, the caches and the mocks besides).
 * Why: docs/source-client.md#transport
 */
import type { Dispatcher as DispatcherClass, Pool as PoolClass, errors as ErrorClasses } from 'undici';
import api from 'undici/lib/api/index.js';
import errorsModule from 'undici/lib/core/errors.js';
import DispatcherModule from 'undici/lib/dispatcher/dispatcher.js';
import PoolModule from 'undici/lib/dispatcher/pool.js';

// What undici's index does: the request API on every dispatcher.
Object.assign((DispatcherModule as unknown as typeof DispatcherClass).prototype, api);

export const Pool = PoolModule as unknown as typeof PoolClass;
export type Pool = PoolClass;
export const undiciErrors = errorsModule as unknown as typeof ErrorClasses;
export type { Dispatcher } from 'undici';
