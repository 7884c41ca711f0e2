/**
 * What every stream's settings (`streams.<name>` of the configuration) are made of. A stream
 * declares its own settings from these parts in its folder, each with its description (the
 * example configuration's `streams` section is generated from them); the configuration gathers them.
 */
import { validate as isValidCron } from 'node-cron';
import { z } from 'zod';
import { CHUNK_SIZES, type ChunkSize } from '../dates/calendar.js';
import { parseDuration } from '../dates/duration.js';

/** A cron expression of five or six fields. */
export const cronSchema = z.string().refine((value) => isValidCron(value), {
  message: 'is not a valid cron expression; expected five or six fields such as "0 2 * * *"',
});

/** A duration such as `26h`, `90m` or `1d12h`, as milliseconds. */
export const durationSchema = z.string().transform((text, ctx) => {
  const ms = parseDuration(text);
  if (ms !== null && ms > 0) return ms;
  ctx.issues.push({
    code: 'custom',
    input: text,
    message: 'is not a duration; expected a number with a unit such as "26h", "90m" or "2d"',
  });
  return z.NEVER;
});

/**
 * `streams.<name>.freshness`: when the stream's data counts as late. Each threshold left out is
 * derived from the stream's schedule (warn after one missed interval plus a grace, error after two).
 */
const freshnessSchema = z
  .object({
    warnAfter: durationSchema
      .optional()
      .describe('Time since the last success after which the stream is late.'),
    errorAfter: durationSchema.optional().describe('Time since the last success after which it is an error.'),
  })
  .strict()
  .refine((f) => f.warnAfter === undefined || f.errorAfter === undefined || f.warnAfter < f.errorAfter, {
    message: 'warnAfter must be shorter than errorAfter',
  });

export const positiveInt = z.coerce.number().int().positive();
export const nonNegativeInt = z.coerce.number().int().nonnegative();

/** The settings every stream has: whether it runs, when the scheduler runs it, its backfill chunk. */
export function streamSettings<Extra extends z.ZodRawShape>(
  defaults: { schedule: string; chunk: ChunkSize },
  extra: Extra,
) {
  return z
    .object({
      enabled: z.boolean().default(true).describe('Whether syncs run this stream when none is named.'),
      schedule: cronSchema.default(defaults.schedule).describe('When the scheduler runs the stream.'),
      chunk: z
        .enum(CHUNK_SIZES, { message: 'expected 1m, 3m or 1y' })
        .default(defaults.chunk)
        .describe('Chunk size of a backfill: 1m, 3m or 1y.'),
      freshness: freshnessSchema
        .default({})
        .describe('When its data is late: { warnAfter: 26h, errorAfter: 50h }; default: from its schedule.'),
      ...extra,
    })
    .strict();
}

/**
 * The builders above, handed to a manifest's `settings`. A manifest declares its settings as a
 * function of these rather than importing them, so that reading the registry (the CLI does it
 * at every start, for the streams' names) loads neither zod nor node-cron.
 */
export const SETTINGS_BUILDERS = { streamSettings, positiveInt, nonNegativeInt };
export type SettingsBuilders = typeof SETTINGS_BUILDERS;

/** A stream's settings schema, built from its manifest's declaration. */
export function settingsSchemaOf<Schema>(manifest: { settings(builders: SettingsBuilders): Schema }): Schema {
  return manifest.settings(SETTINGS_BUILDERS);
}
