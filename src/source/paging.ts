/**
 * Where paging ends. The source may announce the total (`X-Total-Count` or the body's
 * `pagination.totalCount`) and links (`Link` header, body `pagination.links`), or none of
 * them; the last page is recognised either way.
 */

/** The relations of an RFC 8288 `Link` header (`<url>; rel="next", ...`), by name. */
export function parseLinkHeader(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined || header.trim() === '') return undefined;
  const links: Record<string, string> = {};
  const pattern = /<([^>]*)>\s*((?:;\s*[^;,]+)*)/g;
  for (let m = pattern.exec(header); m; m = pattern.exec(header)) {
    const rel = /;\s*rel\s*=\s*"?([^";,]+)"?/i.exec(m[2]);
    if (!rel) continue;
    for (const name of rel[1].trim().split(/\s+/)) links[name.toLowerCase()] = m[1];
  }
  return links;
}

/** What is known about one page when deciding whether it is the last. */
export interface PageFacts {
  pageNo: number;
  /** `per_page` asked for, or the page size the source says it used. */
  perPage: number;
  /** Records on the page. */
  count: number;
  /** Total records of the request, when announced. */
  totalCount?: number;
  /** Link relations, when announced (header or body): no `next` among them means last. */
  links?: Record<string, string>;
}

/**
 * The page size pages are counted in: the smaller of the one asked for and the one the source
 * says it used (a source announcing a larger size than it sends must not end a listing early).
 */
export function effectivePageSize(requested: number, announced: number | undefined): number {
  return announced !== undefined && Number.isInteger(announced) && announced > 0
    ? Math.min(requested, announced)
    : requested;
}

/**
 * Whether an announced total agrees with the records received: every page before this one full,
 * at least as many records as received so far, and exactly as many when this page is the
 * short (or empty) one that ends the listing.
 */
export function totalAgrees(facts: Pick<PageFacts, 'pageNo' | 'perPage' | 'count' | 'totalCount'>): boolean {
  if (facts.totalCount === undefined) return false;
  const received = (facts.pageNo - 1) * facts.perPage + facts.count;
  if (facts.totalCount < received) return false;
  return facts.count >= facts.perPage || facts.totalCount === received;
}

/**
 * Whether no page follows: an empty page, a page shorter than `perPage`, announced links
 * without `next`, or (without links) a page that reaches the announced total when that total
 * agrees with the records received.
 */
export function isLastPage(facts: PageFacts): boolean {
  if (facts.count === 0 || facts.count < facts.perPage) return true;
  // Announced links decide over a total: a total that lies short must not end a listing they go on with.
  if (facts.links !== undefined && Object.keys(facts.links).length > 0) return facts.links.next === undefined;
  return totalAgrees(facts) && facts.pageNo * facts.perPage >= facts.totalCount!;
}

/** `X-Total-Count` as a number, when it is one. */
export function parseTotalCount(header: string | undefined): number | undefined {
  return header !== undefined && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined;
}

/**
 * The most pages a listing may take: what its announced total needs plus some slack (records
 * added while it is paged), never more than the configured `maxPages`.
 */
export function pageCap(maxPages: number, perPage: number, totalCount: number | undefined): number {
  if (totalCount === undefined) return maxPages;
  const needed = Math.ceil(totalCount / perPage);
  return Math.min(maxPages, needed + Math.max(2, Math.ceil(needed / 10)));
}
