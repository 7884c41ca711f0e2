// Loaded into the incremental `propsync sync` by the bench (NODE_OPTIONS=--import=...): appends
// each HTTP request undici sends (origin, method, path, headers, body) to the file named by
// PROPSYNC_BENCH_RECORD, one JSON line each, with how many requests were in flight when it
// started, so that bench/run.ts can replay them. It reads undici's diagnostics channels and
// changes nothing in the command. Why: docs/benchmark.md
import { channel } from 'node:diagnostics_channel';
import { appendFileSync } from 'node:fs';

const file = process.env.PROPSYNC_BENCH_RECORD;
if (file) {
  let inFlight = 0;
  const done = () => {
    inFlight -= 1;
  };
  channel('undici:request:create').subscribe(({ request }) => {
    inFlight += 1;
    const headers = [];
    if (Array.isArray(request.headers))
      for (let i = 0; i < request.headers.length; i += 2)
        headers.push([request.headers[i], request.headers[i + 1]]);
    const body =
      request.body == null
        ? null
        : Buffer.isBuffer(request.body) || request.body instanceof Uint8Array
          ? Buffer.from(request.body).toString('base64')
          : null;
    appendFileSync(
      file,
      `${JSON.stringify({ origin: request.origin, method: request.method, path: request.path, headers, body, inFlight })}\n`,
    );
  });
  channel('undici:request:trailers').subscribe(done);
  channel('undici:request:error').subscribe(done);
}
