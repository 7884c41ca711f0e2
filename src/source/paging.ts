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
 * Whether no page follows: an empty page, a page shorter than `perPage`, a page that reaches
 * the announced total, or announced links without `next`.
 */
export function isLastPage(facts: PageFacts): boolean {
  if (facts.count === 0 || facts.count < facts.perPage) return true;
  if (facts.totalCount !== undefined && facts.pageNo * facts.perPage >= facts.totalCount) return true;
  if (facts.links !== undefined && Object.keys(facts.links).length > 0 && facts.links.next === undefined) return true;
  return false;
}

/** `X-Total-Count` as a number, when it is one. */
export function parseTotalCount(header: string | undefined): number | undefined {
  return header !== undefined && /^\s*\d+\s*$/.test(header) ? Number(header) : undefined;
}
