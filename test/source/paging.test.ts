import { describe, expect, it } from 'vitest';
import { isLastPage, parseLinkHeader, parseTotalCount } from '../../src/source/paging.js';

describe('parseLinkHeader', () => {
  it('reads RFC 8288 relations', () => {
    const header =
      '<http://h/api/v1/leases?page_no=1&per_page=5>; rel="first", <http://h/api/v1/leases?page_no=2&per_page=5>; rel="next", <http://h/api/v1/leases?page_no=6&per_page=5>; rel=last';
    expect(parseLinkHeader(header)).toEqual({
      first: 'http://h/api/v1/leases?page_no=1&per_page=5',
      next: 'http://h/api/v1/leases?page_no=2&per_page=5',
      last: 'http://h/api/v1/leases?page_no=6&per_page=5',
    });
    expect(parseLinkHeader(undefined)).toBeUndefined();
    expect(parseLinkHeader('<x>; title="no rel"')).toEqual({});
  });
});

describe('isLastPage', () => {
  it('ends on an empty or short page, whatever else is known', () => {
    expect(isLastPage({ pageNo: 1, perPage: 5, count: 0 })).toBe(true);
    expect(isLastPage({ pageNo: 3, perPage: 5, count: 4 })).toBe(true);
    expect(isLastPage({ pageNo: 3, perPage: 5, count: 4, links: { next: 'x' } })).toBe(true);
  });
  it('ends when the announced total is reached', () => {
    expect(isLastPage({ pageNo: 2, perPage: 5, count: 5, totalCount: 10 })).toBe(true);
    expect(isLastPage({ pageNo: 2, perPage: 5, count: 5, totalCount: 11 })).toBe(false);
  });
  it('ends when links are announced without next', () => {
    expect(isLastPage({ pageNo: 2, perPage: 5, count: 5, links: { first: 'a', prev: 'b', last: 'c' } })).toBe(
      true,
    );
    expect(isLastPage({ pageNo: 2, perPage: 5, count: 5, links: { first: 'a', next: 'b', last: 'c' } })).toBe(
      false,
    );
  });
  it('goes on with a full page and nothing announced', () => {
    expect(isLastPage({ pageNo: 7, perPage: 5, count: 5 })).toBe(false);
  });
  it('reads X-Total-Count', () => {
    expect(parseTotalCount('28')).toBe(28);
    expect(parseTotalCount('many')).toBeUndefined();
    expect(parseTotalCount(undefined)).toBeUndefined();
  });
});
