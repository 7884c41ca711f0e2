import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { statusText } from '../../src/cli/status-text.js';
import { KEEP_EVERYTHING, type PrivacyConfig } from '../../src/config/privacy.js';
import { readStatus } from '../../src/sync/status.js';
import { PERSONAL_CLASSES } from '../../src/warehouse/schema.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** Issue 40: `status` shows, per account, the privacy policy its rows were written under. */

const DROP: PrivacyConfig = {
  personal: 'drop',
  classes: {},
  modes: Object.fromEntries(PERSONAL_CLASSES.map((name) => [name, 'drop'])) as PrivacyConfig['modes'],
};

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
  await database.db
    .insertInto('privacy_policies')
    .values({ account_id: 'north', modes: JSON.stringify(DROP.modes), key_id: null, applying: null })
    .execute();
});
afterAll(async () => {
  await database?.drop();
});

const status = (account: string, privacy: PrivacyConfig) =>
  readStatus(database.db, { account, dailyCallBudget: 100, timeZone: 'UTC', privacy });

describe('status: the privacy policy in force', () => {
  it('shows the policy recorded for the account when the configuration agrees', async () => {
    const report = await status('north', DROP);
    expect(report.privacy?.state).toBe('in force');
    expect(report.privacy?.inForce?.modes).toMatchObject({ name: 'drop', email: 'drop' });
    const text = statusText([report], 'db').join('\n');
    expect(text).toMatch(/privacy: name drop, email drop, phone drop/);
  });

  it('says a sync refuses until privacy apply when the configuration differs', async () => {
    const report = await status('north', KEEP_EVERYTHING);
    expect(report.privacy?.state).toBe('differs');
    expect(JSON.parse(JSON.stringify(report)).privacy.inForce.modes.name).toBe('drop');
    const text = statusText([report], 'db').join('\n');
    expect(text).toMatch(
      /rows written under "name drop.*the configuration says "keep.*propsync privacy apply/,
    );
  });

  it('says an account with no rows gets the configured policy on its next sync', async () => {
    const report = await status('south', DROP);
    expect(report.privacy).toMatchObject({ state: 'no rows', inForce: null });
    expect(statusText([report], 'db').join('\n')).toMatch(
      /privacy: no rows yet; the next sync writes under "name drop/,
    );
  });

  it('says an apply cut short must be finished', async () => {
    await database.db
      .updateTable('privacy_policies')
      .set({
        applying: JSON.stringify({
          target: { modes: KEEP_EVERYTHING.modes, keyId: null },
          progress: { leases: 'done', lease_customers: '17' },
        }),
      })
      .where('account_id', '=', 'north')
      .execute();
    const report = await status('north', DROP);
    expect(report.privacy?.state).toBe('applying');
    expect(report.privacy?.applying?.tablesDone).toEqual(['leases']);
    expect(statusText([report], 'db').join('\n')).toMatch(
      /tables done: leases\); run `propsync privacy apply`/,
    );
  });
});
