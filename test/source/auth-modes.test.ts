import { describe, expect, it } from 'vitest';
import { authModeOf, authSettingsProblem } from '../../src/source/auth-modes.js';
import { jsonEnvelope } from '../../src/source/envelope.js';

describe('auth modes', () => {
  it('Basic auth: /api/v1/<area>, the Authorization header, the envelope as multipart parts', () => {
    const mode = authModeOf({ type: 'basic', username: 'user', password: 'pass-word' }, 'xml');
    expect(mode.pathOf('leases')).toBe('/api/v1/leases');
    expect(mode.envelopeAuthType).toBe('basic');
    const request = mode.request('<request/>', 'application/xml; CHARSET=UTF-8');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('user:pass-word').toString('base64')}`);
    expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    const body = request.body.toString('utf8');
    expect(body).toContain('name="requestBody"');
    expect(body).toContain('<request/>');
    expect(body).toContain('name="requestContentType"');
    expect(mode.secrets).toEqual(['pass-word', 'user:pass-word']);
  });

  it('the gateway: /ext/orgs/<org>/v1/<area>, X-Api-Key, the JSON envelope as the body', () => {
    const mode = authModeOf({ type: 'apikey', org: 'acme-west.2', apiKey: 'k-123456' }, 'json');
    expect(mode.pathOf('vendors')).toBe('/ext/orgs/acme-west.2/v1/vendors');
    // An org that would climb out of the path, or that needs encoding, is refused (issue 35 item 8).
    for (const org of ['..', '.', 'acme west/2'])
      expect(() => authModeOf({ type: 'apikey', org, apiKey: 'k-123456' }, 'json')).toThrow(/org must be/);
    expect(mode.envelopeAuthType).toBe('apikey');
    const envelope = jsonEnvelope('1', 'getLeases', 'r2', { propertyId: '100001' }, mode.envelopeAuthType);
    expect(JSON.parse(envelope)).toEqual({
      auth: { type: 'apikey' },
      requestId: '1',
      method: { name: 'getLeases', version: 'r2', params: { propertyId: '100001' } },
    });
    const request = mode.request(envelope, 'application/json; CHARSET=UTF-8');
    expect(request.headers).toEqual({
      'content-type': 'application/json; CHARSET=UTF-8',
      'x-api-key': 'k-123456',
    });
    expect(request.body.toString('utf8')).toBe(envelope);
    expect(mode.secrets).toEqual(['k-123456']);
    expect(mode.credentialHint).not.toContain('k-123456');
  });

  it('refuses what cannot be sent, without quoting the key', () => {
    expect(authSettingsProblem({ type: 'apikey', org: 'acme', apiKey: 'k-123456' }, 'xml')).toMatch(
      /format xml cannot be used with an API key/,
    );
    expect(authSettingsProblem({ type: 'apikey', org: '', apiKey: 'k-123456' }, 'json')).toMatch(
      /org is empty/,
    );
    expect(authSettingsProblem({ type: 'apikey', org: 'acme', apiKey: '' }, 'json')).toMatch(
      /API key is empty/,
    );
    const broken = authSettingsProblem({ type: 'apikey', org: 'acme', apiKey: 'k-123\r\nX-Evil: 1' }, 'json');
    expect(broken).toMatch(/control character/);
    expect(broken).not.toContain('k-123');
    expect(authSettingsProblem({ type: 'basic', username: 'u', password: '' }, 'json')).toMatch(
      /password is empty/,
    );
    expect(authSettingsProblem({ type: 'apikey', org: 'acme', apiKey: 'k-123456' }, 'json')).toBeUndefined();
    expect(() => authModeOf({ type: 'apikey', org: 'acme', apiKey: 'k-123456' }, 'xml')).toThrow(
      /^source settings: format xml/,
    );
  });
});
