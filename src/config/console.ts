import { z } from 'zod';

const environmentName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, {
  message:
    'is not an environment variable name; expected letters, digits and _ such as PROPSYNC_CONSOLE_PASSWORD',
});

const enabledFlag = z.preprocess(
  (value) =>
    typeof value === 'string'
      ? (({ true: true, false: false } as Record<string, boolean>)[value.trim().toLowerCase()] ?? value)
      : value,
  z.boolean({ message: 'expected true or false' }),
);

/** `console.auth`: who may read the console; the secret stays in the environment variable it names. */
const consoleAuthSchema = z.discriminatedUnion(
  'type',
  [
    z
      .object({
        type: z.literal('basic'),
        username: z.string().min(1, { message: 'is empty; expected the user name the browser asks for' }),
        passwordEnv: environmentName,
      })
      .strict(),
    z.object({ type: z.literal('bearer'), tokenEnv: environmentName }).strict(),
  ],
  { message: 'is not a known auth type; expected type: basic (username, passwordEnv) or bearer (tokenEnv)' },
);

/**
 * `console:` the read-only web console (docs/console.md), served by `propsync schedule` and
 * `propsync worker` beside /healthz and /metrics, and by `propsync console`.
 */
export const consoleSchema = z
  .object({
    /** Serve the console at `/` of the /healthz and /metrics server. */
    enabled: enabledFlag.default(true),
    /** Required to serve it on another address than this machine's. */
    auth: consoleAuthSchema.optional(),
  })
  .strict()
  .default({ enabled: true });

/** The `console:` settings. */
export type ConsoleConfig = z.output<typeof consoleSchema>;
/** `console.auth`, when set. */
export type ConsoleAuthConfig = NonNullable<ConsoleConfig['auth']>;
