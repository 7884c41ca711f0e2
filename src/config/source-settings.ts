/**
 * The source client's plain settings from the configuration's `source` block: its keys as they
 * are, the credential as the client's auth union (`source.username`/`source.password` are
 * Basic auth).
 */
import type { SourceSettings } from '../source/settings.js';
import type { SourceConfig } from './schema.js';

/** The settings a source client is made with, from the configuration's `source`. */
export function sourceSettingsOf(source: SourceConfig): SourceSettings {
  const { username, password, ...rest } = source;
  return { ...rest, auth: { type: 'basic', username, password } };
}
