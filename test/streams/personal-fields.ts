import { declaredPaths, looksPersonal, type PersonalDeclaration } from '../../src/streams/personal.js';

/** Every path to a value in the records (`a.b.c`), lists passed through as the declarations read them. */
export function leafPaths(records: readonly unknown[]): Set<string> {
  const paths = new Set<string>();
  const walk = (node: unknown, path: string[]) => {
    if (Array.isArray(node)) for (const item of node) walk(item, path);
    else if (node !== null && typeof node === 'object')
      for (const [key, child] of Object.entries(node)) walk(child, [...path, key]);
    else if (path.length) paths.add(path.join('.'));
  };
  for (const record of records) walk(record, []);
  return paths;
}

/** The fields of the records whose names look personal and that the declaration does not place, sorted. */
export function undeclaredPersonalFields(
  declaration: PersonalDeclaration,
  records: readonly unknown[],
): string[] {
  const declared = declaredPaths(declaration);
  return [...leafPaths(records)]
    .filter((path) => looksPersonal(path.slice(path.lastIndexOf('.') + 1)) && !declared.has(path))
    .sort();
}
