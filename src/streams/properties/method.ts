import type { SourceMethod } from '../../source/types.js';

/** getProperties (`/api/v1/properties`): every property the credential sees, r1 only. */
export const GET_PROPERTIES: SourceMethod = {
  name: 'getProperties',
  area: 'properties',
  versions: ['r1'],
  defaultVersion: 'r1',
  records: ['PhysicalProperty', 'Property'],
  params: {
    propertyIds: { kind: 'idList' },
  },
};
