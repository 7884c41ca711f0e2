/**
 * JSON replies → the plain tree (see tree.ts): parsed once with the built-in parser, then
 * normalized in place (no copy): numbers become their text, true/false become "true"/"false",
 * null and empty arrays are dropped, one-element arrays become their element and empty
 * objects the empty text, so that JSON and XML of the same data are deep-equal.
 *
 * A JSON number's text is `String(number)`: the source's numbers (integer ids, amounts in
 * cents) survive that exactly; digits beyond double precision would not.
 */
import type { Tree } from './tree.js';

/** Parses JSON text into the plain tree. Throws `SyntaxError` when the text is not JSON. */
export function decodeJson(text: string): Tree {
  const root = normalize(JSON.parse(text) as unknown);
  return root === undefined ? '' : root;
}

/** Normalizes a value `JSON.parse` gave, in place, as `decodeJson` does; `undefined` means "leave it out". */
export function normalizeJson(value: unknown): Tree | undefined {
  return normalize(value);
}

/** Normalizes a parsed JSON value in place; `undefined` means "leave it out". */
function normalize(value: unknown): Tree | undefined {
  switch (typeof value) {
    case 'string':
      return value;
    case 'number':
      return String(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        const length = value.length;
        let kept = 0;
        let nested = false;
        for (let i = 0; i < length; i++) {
          const item = normalize(value[i]);
          if (item === undefined) continue;
          if (Array.isArray(item)) nested = true;
          value[kept++] = item;
        }
        value.length = kept;
        // XML has no nested lists: repeated elements of repeated elements are one list.
        const list = (nested ? value.flat() : value) as Tree[];
        if (list.length === 0) return undefined;
        return list.length === 1 ? list[0] : list;
      }
      const record = value as Record<string, unknown>;
      let keys = 0;
      for (const key in record) {
        const item = normalize(record[key]);
        if (item === undefined) delete record[key];
        else {
          record[key] = item;
          keys++;
        }
      }
      return keys === 0 ? '' : (record as Tree);
    }
    default:
      return undefined;
  }
}
