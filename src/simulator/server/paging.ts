import { invalidParameter } from './errors.js';

/** Bounds and default of `per_page`. */
export const PER_PAGE = { min: 5, max: 1000, default: 500 } as const;

/** The page a request asks for. */
export interface PageRequest {
  pageNo: number;
  perPage: number;
}

/** A page of a result set. */
export interface PageInfo extends PageRequest {
  totalCount: number;
  lastPage: number;
  /** Index of the page's first record and one past its last, in the whole result. */
  start: number;
  end: number;
}

/** Links to the first, previous, next and last page (prev and next only where such a page exists). */
export interface PageLinks {
  first: string;
  prev?: string;
  next?: string;
  last: string;
}

function positiveInteger(url: URL, name: string): number | undefined {
  const value = url.searchParams.get(name);
  if (value === null || value.trim() === '') return undefined;
  if (!/^\d{1,9}$/.test(value.trim())) throw invalidParameter(name, `'${value}' is not a positive integer`);
  return Number(value.trim());
}

/** `page_no` (from 1) and `per_page` (5 to 1000, default 500) of a request URL; 400 when out of range. */
export function parsePaging(url: URL): PageRequest {
  const pageNo = positiveInteger(url, 'page_no') ?? 1;
  const perPage = positiveInteger(url, 'per_page') ?? PER_PAGE.default;
  if (pageNo < 1) throw invalidParameter('page_no', 'pages are numbered from 1');
  if (perPage < PER_PAGE.min || perPage > PER_PAGE.max) {
    throw invalidParameter(
      'per_page',
      `${perPage} is out of range; expected ${PER_PAGE.min} to ${PER_PAGE.max}`,
    );
  }
  return { pageNo, perPage };
}

/** The slice of a result of `totalCount` records that a page request covers. */
export function pageOf(totalCount: number, request: PageRequest): PageInfo {
  const lastPage = Math.max(1, Math.ceil(totalCount / request.perPage));
  const start = Math.min(totalCount, (request.pageNo - 1) * request.perPage);
  const end = Math.min(totalCount, start + request.perPage);
  return { ...request, totalCount, lastPage, start, end };
}

/** Absolute URLs of the neighbouring pages, keeping the request's other query parameters. */
export function pageLinks(requestUrl: URL, page: PageInfo): PageLinks {
  const at = (pageNo: number) => {
    const url = new URL(requestUrl.href);
    url.searchParams.set('page_no', String(pageNo));
    url.searchParams.set('per_page', String(page.perPage));
    return url.href;
  };
  const links: PageLinks = { first: at(1), last: at(page.lastPage) };
  if (page.pageNo > 1) links.prev = at(Math.min(page.pageNo - 1, page.lastPage));
  if (page.pageNo < page.lastPage) links.next = at(page.pageNo + 1);
  return {
    first: links.first,
    ...(links.prev ? { prev: links.prev } : {}),
    ...(links.next ? { next: links.next } : {}),
    last: links.last,
  };
}

/** An RFC 8288 `Link` header value: `<url>; rel="first", <url>; rel="next", ...`. */
export function linkHeader(links: PageLinks): string {
  return Object.entries(links)
    .map(([rel, url]) => `<${url}>; rel="${rel}"`)
    .join(', ');
}

/** The body's `result.pagination` (sent when the request has `X-Send-Pagination-Links: 1`). */
export function bodyPagination(page: PageInfo, links: PageLinks): Record<string, unknown> {
  return { totalCount: page.totalCount, pageNumber: page.pageNo, perPage: page.perPage, links };
}
