import { describe, expect, it } from 'vitest';
import { configSchema } from '../../src/config/schema.js';
import { sourceSettingsOf } from '../../src/config/source-settings.js';

describe('sourceSettingsOf', () => {
  it("makes the configuration's source.username and source.password the client's Basic auth, the other keys as they are", () => {
    const { source } = configSchema.parse({ database: { url: 'postgres://x@localhost/x' }, source: { url: 'https://acme.example.com', username: 'sync-user', password: 'pw-1234', pageSize: 50 } });
    const settings = sourceSettingsOf(source);
    expect(settings.auth).toEqual({ type: 'basic', username: 'sync-user', password: 'pw-1234' });
    expect(settings).not.toHaveProperty('username');
    expect(settings).not.toHaveProperty('password');
    const { username: _username, password: _password, ...rest } = source;
    expect(settings).toEqual({ ...rest, auth: settings.auth });
  });
});
