import { sql, type Kysely } from 'kysely';

/**
 * Issue 41. The queues holding a job a worker may take now, in one call whose plan each session keeps:
 * the job table has a partition per account's queue, and planning a look at all of them took 10 ms at 80
 * accounts (28 ms naming them), a third of the warehouse's time in a night of 80 accounts; PL/pgSQL plans
 * it once a session. pg-boss's own fetch condition. The SQL here is frozen.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create function propsync_queue.ready_queues() returns setof text
    language plpgsql stable as $$
    begin
      return query
        select j.name from propsync_queue.job j
         where j.state < 'active' and j.start_after < now()
         group by j.name;
    end
    $$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop function propsync_queue.ready_queues()`.execute(db);
}
