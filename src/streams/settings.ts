/**
 * What every stream's settings (`streams.<name>` of the configuration) are made of. A stream
 * declares its own settings from these parts in its folder, each with its description (the
 * example configuration's `streams` section is generated from them); the configuration gathers them.
 */
import { validate as isValidCron } from 'node-cron';
import { z } from 'zod';
import { CHUNK_SIZES, type ChunkSize } from '../dates/days.js';

/** A cron expression of five or six fields. */
const cronSchema = z
  .string()
  .refine((value) => isValidCron(value), { message: 'is not a valid cron expression; expected five or six fields such as "0 2 * * *"' });

export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().nonnegative();

/** The settings every stream has: whether it runs, when the scheduler runs it, its backfill chunk. */
export function streamSettings<Extra extends z.ZodRawShape>(defaults: { schedule: string; chunk: ChunkSize }, extra: Extra) {
  return z
    .object({
      enabled: z.boolean().default(true).describe('Whether syncs run this stream when none is named.'),
      schedule: cronSchema.default(defaults.schedule).describe('When the scheduler runs the stream.'),
      chunk: z.enum(CHUNK_SIZES, { message: 'expected 1m, 3m or 1y' }).default(defaults.chunk).describe('Chunk size of a backfill: 1m, 3m or 1y.'),
      ...extra,
    })
    .strict();
}
