/**
 * The checks a listing passes before it is trusted, for a reader that takes a property's whole
 * scope in one pass (`verify`): no page repeats the keys of the page before it (a source that is
 * not paging), the announced total stays the same from page to page, and the distinct records
 * that came are as many as it announced. The engine's units hold the same rules with resuming
 * besides (run-unit.ts, ListingTally).
 */

/** A listing that is not trusted: nothing may be concluded from it. */
export class UntrustedListingError extends Error {
  override name = 'UntrustedListingError';
}

/** Counts the pages of one pass of a listing; throws `UntrustedListingError` when it is not to be trusted. */
export class ListingCheck {
  private readonly keys = new Set<string>();
  private keyless = 0;
  private previous: string[] = [];
  private total: number | undefined;
  private changed = false;

  /** `what` names the listing in the messages (`getLeases of property 100001`). */
  constructor(private readonly what: string) {}

  /** Counts a page (its records' keys, undefined for a record without one, and its announced total). */
  add(pageNo: number, keys: readonly (string | undefined)[], totalCount: number | undefined): void {
    const pageKeys = keys.filter((key): key is string => key !== undefined);
    this.keyless += keys.length - pageKeys.length;
    if (
      pageKeys.length > 0 &&
      pageKeys.length === this.previous.length &&
      pageKeys.every((key, i) => key === this.previous[i])
    )
      throw new UntrustedListingError(
        `page ${pageNo} of ${this.what} repeats the keys of page ${pageNo - 1} (${pageKeys.length} records); the source is not paging, so the listing is not trusted`,
      );
    this.previous = pageKeys;
    for (const key of pageKeys) this.keys.add(key);
    if (totalCount === undefined) return;
    if (this.total !== undefined && totalCount !== this.total) this.changed = true;
    this.total ??= totalCount;
  }

  /** Why the whole pass is not to be trusted (its total changed, or it is short or long of it), or undefined. */
  problem(): string | undefined {
    if (this.changed)
      return `the listing of ${this.what} changed while it was read (its announced total moved)`;
    if (this.total === undefined) return undefined;
    const seen = this.keys.size + this.keyless;
    if (seen === this.total) return undefined;
    return `the listing of ${this.what} announced ${this.total} records but ${seen} distinct ones came; it is not complete`;
  }
}
