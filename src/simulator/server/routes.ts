import { AREA_METHODS, type ApiMethod } from '../usage.js';
import { ApiError, ERROR_CODE } from './errors.js';

export type { ApiMethod } from '../usage.js';

/** Versions of every method; an omitted version means r1. */
export const API_VERSIONS = ['r1', 'r2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/**
 * The area of an API path: `/api/v1/<area>` or `/api/<area>` (a trailing slash tolerated), or
 * undefined when the path is not an API path at all. The area is not checked here.
 */
export function areaOfPath(pathname: string): string | undefined {
  const match = /^\/api\/(?:v1\/)?([^/]+)\/?$/.exec(pathname);
  return match ? decodeURIComponent(match[1]!) : undefined;
}

/**
 * The method and version a request asks for, checked against its area; throws an ApiError
 * with code 404 for an unknown area, method or version.
 */
export function resolveMethod(area: string, name: string | undefined, version: string | undefined): { method: ApiMethod; version: ApiVersion } {
  const method = Object.hasOwn(AREA_METHODS, area) ? AREA_METHODS[area] : undefined;
  if (!method) throw new ApiError(ERROR_CODE.unknownMethod, `Unknown area '${area}'; expected one of ${Object.keys(AREA_METHODS).join(', ')}`);
  if (name !== method) {
    throw new ApiError(ERROR_CODE.unknownMethod, `Unknown method '${name ?? ''}' for area '${area}'; this area serves ${method}`);
  }
  const resolved = version === undefined || version.trim() === '' ? 'r1' : version.trim();
  if (!(API_VERSIONS as readonly string[]).includes(resolved)) {
    throw new ApiError(ERROR_CODE.unknownMethod, `Unknown version '${resolved}' of ${method}; expected r1 or r2`);
  }
  return { method, version: resolved as ApiVersion };
}
