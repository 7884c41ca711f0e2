import { InvalidArgumentError } from 'commander';
import { CHUNK_SIZES, isDay, type ChunkSize } from '../dates/calendar.js';
import { STREAM_NAMES, type StreamName } from '../streams/registry.js';

/** `--stream NAME`, repeatable: collects known stream names, rejecting others (exit 2). */
export function collectStream(value: string, previous: StreamName[] = []): StreamName[] {
  if (!(STREAM_NAMES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`unknown stream '${value}'; expected ${STREAM_NAMES.join(' or ')}`);
  return previous.includes(value as StreamName) ? previous : [...previous, value as StreamName];
}

/** `--stream NAME`, once: a known stream name. */
export function parseStream(value: string): StreamName {
  return collectStream(value)[0];
}

/** The help line of `--account ID`. */
export const ACCOUNT_OPTION_HELP =
  'a configured account (accounts[].id; repeatable, or comma-separated; default: every account)';

/** `--account ID`, repeatable: account ids as the configuration spells them (checked against it once it is read). */
export function collectAccount(value: string, previous: string[] = []): string[] {
  const ids = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!/^[a-z0-9_-]{1,40}$/.test(id))
      throw new InvalidArgumentError(
        `'${id}' is not an account id; expected 1 to 40 lowercase letters, digits, - or _`,
      );
  return [...new Set([...previous, ...ids])];
}

/** `--property ID`, repeatable: numeric property ids, also accepted comma-separated. */
export function collectProperty(value: string, previous: string[] = []): string[] {
  const ids = value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  for (const id of ids)
    if (!/^\d{1,15}$/.test(id))
      throw new InvalidArgumentError(`'${id}' is not a property id; expected digits such as 100001`);
  return [...new Set([...previous, ...ids])];
}

/** `--property ID`, once. */
export function parseProperty(value: string): string {
  const ids = collectProperty(value);
  if (ids.length !== 1) throw new InvalidArgumentError('expected one property id');
  return ids[0];
}

/** A calendar day `YYYY-MM-DD` that exists (not 2024-02-30). */
export function parseDay(value: string): string {
  if (!isDay(value))
    throw new InvalidArgumentError(`'${value}' is not a date; expected YYYY-MM-DD such as 2021-01-31`);
  return value;
}

/** `--chunk 1m|3m|1y`. */
export function parseChunk(value: string): ChunkSize {
  if (!(CHUNK_SIZES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`'${value}' is not a chunk size; expected ${CHUNK_SIZES.join(', ')}`);
  return value as ChunkSize;
}

/** A parser of a whole number from `min` to `max` (`--quarantine-limit`, `--concurrency`). */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const range = max === Number.MAX_SAFE_INTEGER ? `${min} or more` : `from ${min} to ${max}`;
  return (value) => {
    const number = Number(value);
    if (!/^\d+$/.test(value) || number < min || number > max)
      throw new InvalidArgumentError(`'${value}' is not a count; expected a whole number ${range}`);
    return number;
  };
}
