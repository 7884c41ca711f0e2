// undici's own modules, imported by path (src/source/undici-pool.ts): typed there from undici's index.
declare module 'undici/lib/api/index.js' {
  const api: Record<string, unknown>;
  export default api;
}
declare module 'undici/lib/core/errors.js' {
  const errors: unknown;
  export default errors;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: unknown;
  export default Dispatcher;
}
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: unknown;
  export default Pool;
}
