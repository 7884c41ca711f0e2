import type { TreeObject } from '../../source/tree.js';
import type { Discovery } from '../types.js';
import { GET_PROPERTIES } from './manifest.js';
import { propertyIdentity } from './normalize.js';

/** Which properties a run may cover: every property getProperties lists (one call per page). */
export const PROPERTY_DISCOVERY: Discovery = {
  method: GET_PROPERTIES,
  property(record) {
    const { id, name, disabled } = propertyIdentity(record as TreeObject);
    if (id === null) return null;
    return { id: String(id), name: name ?? '', disabled: disabled ?? false };
  },
};
