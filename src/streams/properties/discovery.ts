import { asBoolean, asId, asText } from '../../source/quirks.js';
import type { Discovery } from '../types.js';
import { GET_PROPERTIES } from './method.js';

/** Which properties a run may cover: every property getProperties lists (one call per page). */
export const PROPERTY_DISCOVERY: Discovery = {
  method: GET_PROPERTIES,
  property(record) {
    const property = record as Record<string, unknown>;
    const id = asId(property.PropertyID, 'PropertyID');
    if (id === null) return null;
    return {
      id: String(id),
      name: asText(property.MarketingName, 'MarketingName') ?? '',
      disabled: asBoolean(property.IsDisabled, 'IsDisabled') ?? false,
    };
  },
};
