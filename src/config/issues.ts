import type { z } from 'zod';

/** Where a value sits in the configuration: `['accounts', 1, 'source', 'url']`. */
export type IssuePath = (string | number)[];

/** What a problem tells the loader beside its message. */
export interface IssueParams {
  /**
   * The account (its position in `accounts:`) a problem belongs to when its key is outside it (an inherited default).
   */
  account?: number;
  /** The message says it all: the faulty value is not quoted. */
  hideValue?: boolean;
}

/** The problems found while a configuration is resolved, in zod's form: the loader words them. */
export class Issues {
  readonly list: z.core.$ZodIssue[] = [];

  get size(): number {
    return this.list.length;
  }

  /** A problem of the value at `path`; an absent value is told as missing whatever the message. */
  add(path: IssuePath, message: string, params: IssueParams = {}): void {
    this.list.push({ code: 'custom', path, message, params, input: undefined });
  }

  /** The value as `schema` parses it, or undefined with its problems added, under `path`. */
  check<S extends z.ZodType>(schema: S, value: unknown, path: IssuePath): z.output<S> | undefined {
    const result = schema.safeParse(value);
    if (result.success) return result.data;
    for (const issue of result.error.issues) this.list.push({ ...issue, path: [...path, ...issue.path] });
    return undefined;
  }
}

/** `source.retry.maxAttempts`, `propertyIds[2]`, `accounts[1].source.url`. */
export function dotted(path: readonly (string | number)[]): string {
  return path
    .map(String)
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/** A YAML mapping (a plain object), not a list or a scalar. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
