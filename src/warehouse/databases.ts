import pg, { escapeIdentifier } from 'pg';

/** Returns the URL of database `name` on the same server as `url`. */
export function withDatabase(url: string, name: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${name}`;
  return parsed.toString();
}

/** Runs `work` on a client of the server's admin database; losing its server fails its query, never the process. */
export async function onAdmin<T>(adminUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  client.on('error', () => {});
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a database on the server of `adminUrl` if it does not exist yet. */
export async function ensureDatabase(adminUrl: string, name: string): Promise<void> {
  await onAdmin(adminUrl, async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database ${escapeIdentifier(name)}`);
  });
}

const dropStatement = (name: string) => `drop database if exists ${escapeIdentifier(name)} with (force)`;

/** Drops a database, disconnecting whoever is still on it. */
export async function dropDatabase(adminUrl: string, name: string): Promise<void> {
  await onAdmin(adminUrl, (client) => client.query(dropStatement(name)));
}

/** Makes database `name` anew as a copy of database `template` (which nobody may be connected to). */
export async function copyDatabase(adminUrl: string, template: string, name: string): Promise<void> {
  await onAdmin(adminUrl, async (client) => {
    await client.query(dropStatement(name));
    await client.query(`create database ${escapeIdentifier(name)} template ${escapeIdentifier(template)}`);
  });
}
