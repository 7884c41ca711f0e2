import { AREA_METHODS, type ApiMethod } from '../usage.js';
import { ApiError, ERROR_CODE } from './errors.js';

export type { ApiMethod } from '../usage.js';

/** Versions of every method; an omitted version means r1. */
export const API_VERSIONS = ['r1', 'r2'] as const;
export type ApiVersion = (typeof API_VERSIONS)[number];

/** An API call's path: Basic auth's `/api[/v1]/<area>`, or the gateway's `/ext/orgs/<org>/v1/<area>`. */
export type ApiRoute = { auth: 'basic'; area: string } | { auth: 'apikey'; org: string; area: string };

function decoded(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/**
 * The route of an API path: `/api/v1/<area>` or `/api/<area>` (Basic auth), or
 * `/ext/orgs/<org>/v1/<area>` (the API-key gateway), a trailing slash tolerated; undefined when
 * the path is not an API path at all. Neither the area nor the org is checked here.
 */
export function routeOfPath(pathname: string): ApiRoute | undefined {
  const basic = /^\/api\/(?:v1\/)?([^/]+)\/?$/.exec(pathname);
  if (basic) {
    const area = decoded(basic[1]!);
    return area === undefined ? undefined : { auth: 'basic', area };
  }
  const gateway = /^\/ext\/orgs\/([^/]+)\/v1\/([^/]+)\/?$/.exec(pathname);
  if (!gateway) return undefined;
  const org = decoded(gateway[1]!);
  const area = decoded(gateway[2]!);
  return org === undefined || area === undefined ? undefined : { auth: 'apikey', org, area };
}

/**
 * The method and version a request asks for, checked against its area; throws an ApiError
 * with code 404 for an unknown area, method or version.
 */
export function resolveMethod(
  area: string,
  name: string | undefined,
  version: string | undefined,
): { method: ApiMethod; version: ApiVersion } {
  const method = Object.hasOwn(AREA_METHODS, area) ? AREA_METHODS[area] : undefined;
  if (!method)
    throw new ApiError(
      ERROR_CODE.unknownMethod,
      `Unknown area '${area}'; expected one of ${Object.keys(AREA_METHODS).join(', ')}`,
    );
  if (name !== method) {
    throw new ApiError(
      ERROR_CODE.unknownMethod,
      `Unknown method '${name ?? ''}' for area '${area}'; this area serves ${method}`,
    );
  }
  const resolved = version === undefined || version.trim() === '' ? 'r1' : version.trim();
  if (!(API_VERSIONS as readonly string[]).includes(resolved)) {
    throw new ApiError(
      ERROR_CODE.unknownMethod,
      `Unknown version '${resolved}' of ${method}; expected r1 or r2`,
    );
  }
  return { method, version: resolved as ApiVersion };
}
