import { z } from 'zod';
import { STREAM_MANIFESTS } from '../streams/registry.js';
import { nonNegativeInt, positiveInt, settingsOf } from '../streams/settings.js';
import { DEFAULT_TIME_ZONE, postgresUrl, propertyId, sourceSchema, timeZoneName } from './fields.js';

/** pino levels accepted in `logLevel`. */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

type Manifest = (typeof STREAM_MANIFESTS)[number];

/** The streams propsync knows, from the stream registry. */
export { STREAM_NAMES, type StreamName } from '../streams/registry.js';

/** `streams.<name>`: each stream's own settings, declared in its folder. */
const withDefaults = (settings: z.ZodType) => settings.default(settings.parse({}));
const streamsShape = Object.fromEntries(STREAM_MANIFESTS.map((manifest) => [manifest.name, withDefaults(settingsOf(manifest))])) as unknown as {
  [M in Manifest as M['name']]: z.ZodDefault<ReturnType<M['settings']>>;
};
const streamsSchema = z.object(streamsShape).strict();

/** The whole configuration; every key documented in config/propsync.example.yaml. */
export const configSchema = z
  .object({
    database: z.object({ url: postgresUrl }).strict(),
    source: sourceSchema,
    /** Properties to sync; empty means every property the credential can see (getProperties). */
    propertyIds: z.array(propertyId).default([]),
    timeZone: timeZoneName.default(DEFAULT_TIME_ZONE),
    logLevel: z.enum(LOG_LEVELS, { message: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    /** Minutes without a heartbeat after which `status` shows a run still marked running as abandoned (its process died). */
    abandonedAfterMinutes: positiveInt.max(1440).default(10),
    streams: streamsSchema.prefault({}),
    metrics: z
      .object({
        /** Port of /healthz and /metrics while `propsync schedule` runs; 0 turns them off. */
        port: nonNegativeInt.max(65535).default(9464),
        host: z.string().default('127.0.0.1'),
      })
      .strict()
      .default({ port: 9464, host: '127.0.0.1' }),
  })
  .strict();

/** The configuration after validation and defaults. */
export type Config = z.infer<typeof configSchema>;
export type SourceConfig = Config['source'];

/**
 * The configuration of commands that never call the source (migrate, status, reset): the
 * same keys, but the source's credentials may be absent.
 */
export const offlineConfigSchema = configSchema.extend({ source: sourceSchema.partial().optional() });
export type OfflineConfig = z.infer<typeof offlineConfigSchema>;
