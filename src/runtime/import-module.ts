/**
 * `import()` of a package or a file path. The built command runs as a script compiled from V8's
 * code cache, and node 20 gives such a script no `import()` of its own (nodejs/node#35375): its
 * entry, `bin/propsync.mjs`, lends its own under this name. From the sources (tsx, tests) there
 * is none, and the module's own serves.
 */
const IMPORT_MODULE = Symbol.for('propsync.importModule');

type Importer = (specifier: string) => Promise<unknown>;

export function importModule(specifier: string): Promise<unknown> {
  const lent = (globalThis as { [IMPORT_MODULE]?: Importer })[IMPORT_MODULE];
  return lent ? lent(specifier) : import(specifier);
}
