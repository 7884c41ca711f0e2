/* global fetch */
// Loads the starter dashboards (dashboards.json) into Metabase through its HTTP API: the first-run
// setup (an admin from METABASE_ADMIN_EMAIL / METABASE_ADMIN_PASSWORD) when not done yet, the
// warehouse as a database read through the read-only role (propsync_reader), then each dashboard
// and its questions. Idempotent: a dashboard that exists by name is left as it is (edit it in
// Metabase; delete it to load it again). Run by the compose profile `bi` (service metabase-dashboards).
import { readFileSync } from 'node:fs';

const env = (name, fallback) => {
  const value = process.env[name] || fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};
const base = env('METABASE_URL', 'http://metabase:3000').replace(/\/$/, '');
const admin = {
  email: env('METABASE_ADMIN_EMAIL', 'admin@propsync.local'),
  password: env('METABASE_ADMIN_PASSWORD'),
};
const warehouse = {
  host: env('WAREHOUSE_HOST', 'postgres'),
  port: Number(env('WAREHOUSE_PORT', '5432')),
  dbname: env('WAREHOUSE_DATABASE', 'propsync'),
  user: env('WAREHOUSE_READER', 'propsync_reader'),
  password: env('PROPSYNC_READER_PASSWORD'),
};
const spec = JSON.parse(readFileSync(new URL('./dashboards.json', import.meta.url), 'utf8'));
let session;

async function api(method, path, body) {
  const response = await fetch(`${base}/api${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(session ? { 'x-metabase-session': session } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} /api${path}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : null;
}

async function waitForMetabase() {
  for (let attempt = 0; attempt < 180; attempt++) {
    try {
      const response = await fetch(`${base}/api/health`);
      if (response.ok && (await response.json()).status === 'ok') return;
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
  throw new Error(`Metabase at ${base} did not become healthy within 6 minutes`);
}

async function signIn() {
  const properties = await api('GET', '/session/properties');
  if (properties['setup-token'] && !properties['has-user-setup']) {
    const setup = await api('POST', '/setup', {
      token: properties['setup-token'],
      user: {
        email: admin.email,
        password: admin.password,
        first_name: 'propsync',
        last_name: 'admin',
        site_name: 'propsync',
      },
      prefs: { site_name: 'propsync', allow_tracking: false },
    });
    session = setup.id;
    console.log(`metabase: first-run setup done, admin ${admin.email}`);
    return;
  }
  session = (await api('POST', '/session', { username: admin.email, password: admin.password })).id;
}

async function warehouseDatabase() {
  const listed = await api('GET', '/database');
  const found = (listed.data ?? listed).find((database) => database.name === spec.database);
  if (found) return found.id;
  const created = await api('POST', '/database', {
    engine: 'postgres',
    name: spec.database,
    details: {
      ...warehouse,
      ssl: false,
      'schema-filters-type': 'inclusion',
      'schema-filters-patterns': 'reporting',
    },
  });
  console.log(
    `metabase: added the warehouse as "${spec.database}" (user ${warehouse.user}, schema reporting)`,
  );
  return created.id;
}

async function loadDashboard(databaseId, dashboard) {
  const existing = await api('GET', '/dashboard');
  if (existing.some((item) => item.name === dashboard.name)) {
    console.log(`metabase: dashboard "${dashboard.name}" exists; left as it is`);
    return;
  }
  const created = await api('POST', '/dashboard', {
    name: dashboard.name,
    description: dashboard.description,
  });
  const dashcards = [];
  let row = 0;
  let col = 0;
  for (const [index, card] of dashboard.cards.entries()) {
    const question = await api('POST', '/card', {
      name: card.name,
      display: card.display,
      dataset_query: { type: 'native', native: { query: card.query }, database: databaseId },
      visualization_settings: card.visualization ?? {},
    });
    const [sizeX, sizeY] = card.size;
    if (col + sizeX > 24) {
      row += 8;
      col = 0;
    }
    dashcards.push({ id: -(index + 1), card_id: question.id, row, col, size_x: sizeX, size_y: sizeY });
    col += sizeX;
    if (col >= 24) {
      row += sizeY;
      col = 0;
    }
  }
  await api('PUT', `/dashboard/${created.id}`, { dashcards });
  console.log(`metabase: loaded dashboard "${dashboard.name}" with ${dashcards.length} questions`);
}

await waitForMetabase();
await signIn();
const databaseId = await warehouseDatabase();
for (const dashboard of spec.dashboards) await loadDashboard(databaseId, dashboard);
console.log(
  `metabase: ready at ${env('METABASE_PUBLIC_URL', 'http://127.0.0.1:3000')} (sign in as ${admin.email})`,
);
