/**
 * The plain tree both codecs produce: objects of string keys, arrays for repeated elements,
 * and strings at every leaf. XML cannot tell a one-element list from a single element, an
 * empty list or a null from an absent element, or an empty object from an empty text, so the
 * JSON codec folds those JSON forms into what the same data reads as in XML.
 */
export type Tree = string | TreeObject | Tree[];
/** An object node of a decoded tree. */
export interface TreeObject {
  [key: string]: Tree;
}

/** Whether a node (or anything) is an object node: not text, not a list, not null. */
export function isTreeObject(value: unknown): value is TreeObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
