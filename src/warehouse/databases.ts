import pg, { escapeIdentifier } from 'pg';

/** Returns the URL of database `name` on the same server as `url`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** A client of the server's admin database; losing its server fails its query, never the process. */
function adminClient(adminUrl: string): pg.Client {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  return client;
}

/** Creates a database on the server of `adminUrl` if it does not exist yet. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  const client = adminClient(adminUrl);
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database ${escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
}

/** Drops a database, disconnecting whoever is still on it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  const client = adminClient(adminUrl);
  await client.connect();
  try {
    await client.query(`drop database if exists ${escapeIdentifier(name)} with (force)`);
  } finally {
    await client.end();
  }
}

/** Makes database `name` anew as a copy of database `template` (which nobody may be connected to). */
export async function copyDatabase(adminUrl: string, template: string, name: string): Promise<void> {
  await dropDatabase(adminUrl, name);
  const client = adminClient(adminUrl);
  await client.connect();
  try {
    await client.query(`create database ${escapeIdentifier(name)} template ${escapeIdentifier(template)}`);
  } finally {
    await client.end();
  }
}
