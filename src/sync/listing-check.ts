/**
 * The checks a listing passes before it is trusted, for a reader that takes a property's whole
 * scope in one pass (`verify`): no page repeats the keys of the page before it (a source that is
 * not paging), the announced total stays the same from page to page, and the distinct records
 * that came are as many as it announced. The engine's units count with the same PageKeyTally and
 * resume besides (listing-pass.ts).
 */

/** A listing that is not trusted: nothing may be concluded from it. */
export class UntrustedListingError extends Error {
  override name = 'UntrustedListingError';
}

/**
 * The keys one pass over a listing received: its distinct keys and its keyless records (to tell
 * whether it adds up to an announced total), and the keys of its latest page (to stop a source
 * that sends the same page again and again). The engine's units and `verify` count alike.
 */
export class PageKeyTally {
  private readonly keys = new Set<string>();
  private keyless = 0;
  /** The keys of the latest page, in their order. */
  lastPage: string[] = [];

  /** Counts a page's keys (undefined for a record without one); true when they repeat the previous page's. */
  add(keys: readonly (string | undefined)[]): boolean {
    const pageKeys = keys.filter((key): key is string => key !== undefined);
    this.keyless += keys.length - pageKeys.length;
    const repeated =
      pageKeys.length > 0 &&
      pageKeys.length === this.lastPage.length &&
      pageKeys.every((key, i) => key === this.lastPage[i]);
    if (repeated) return true;
    this.lastPage = pageKeys;
    for (const key of pageKeys) this.keys.add(key);
    return false;
  }

  /** Keyless records of the pass. */
  get keylessCount(): number {
    return this.keyless;
  }

  /** Distinct records of the pass: distinct keys and every keyless record. */
  get distinct(): number {
    return this.keys.size + this.keyless;
  }
}

/** Counts the pages of one pass of a listing; throws `UntrustedListingError` when it is not to be trusted. */
export class ListingCheck {
  private readonly tally = new PageKeyTally();
  private total: number | undefined;
  private changed = false;

  /** `what` names the listing in the messages (`getLeases of property 100001`). */
  constructor(private readonly what: string) {}

  /** Counts a page (its records' keys, undefined for a record without one, and its announced total). */
  add(pageNo: number, keys: readonly (string | undefined)[], totalCount: number | undefined): void {
    if (this.tally.add(keys))
      throw new UntrustedListingError(
        `page ${pageNo} of ${this.what} repeats the keys of page ${pageNo - 1} ` +
          `(${this.tally.lastPage.length} records); the source is not paging, ` +
          `so the listing is not trusted`,
      );
    if (totalCount === undefined) return;
    if (this.total !== undefined && totalCount !== this.total) this.changed = true;
    this.total ??= totalCount;
  }

  /** Why the whole pass is not to be trusted (its total changed, or it is short or long of it), or undefined. */
  problem(): string | undefined {
    if (this.changed)
      return `the listing of ${this.what} changed while it was read (its announced total moved)`;
    if (this.total === undefined) return undefined;
    const seen = this.tally.distinct;
    if (seen === this.total) return undefined;
    return (
      `the listing of ${this.what} announced ${this.total} records but ${seen} distinct ones ` +
      `came; it is not complete`
    );
  }
}
