#!/usr/bin/env bash
# npm run test:container: the compose stack, built and run by a real engine, end to end. It builds
# the image, brings up the demo profile with two workers (warehouse, two simulated accounts, the
# scheduler in queue mode, first-sync enqueuing one run and waiting for it) on a fresh volume,
# checks that nothing depending on the database started before the database's final ready, that the
# workers loaded both accounts' rows and that `status` is clean, then takes everything down.
# Engine: Docker when it answers, else podman through its Docker-compatible socket (see
# docs/operating.md, "Podman"). Settings: WORKERS (default 2), KEEP=1 leaves the stack up.
set -euo pipefail
cd "$(dirname "$0")/.."

WORKERS=${WORKERS:-2}
PROJECT=propsync-container-test
TAG=container-test
started_service=""
healthcheck_loop=""

say() { printf '\n==> [%s] %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'test:container FAILED: %s\n' "$*" >&2; exit 1; }

if docker info >/dev/null 2>&1; then
  ENGINE=docker
  if docker compose version >/dev/null 2>&1; then COMPOSE=(docker compose); else COMPOSE=(docker-compose); fi
elif command -v podman >/dev/null 2>&1; then
  ENGINE=podman
  command -v docker-compose >/dev/null || die "podman is here but docker-compose is not (../shared/tools/container-engine.sh installs both)"
  socket=/run/podman/podman.sock
  if ! curl -sf --unix-socket "$socket" http://d/_ping >/dev/null 2>&1; then
    mkdir -p "$(dirname "$socket")"
    podman system service --time=0 "unix://$socket" &
    started_service=$!
    for _ in $(seq 1 50); do curl -sf --unix-socket "$socket" http://d/_ping >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  export DOCKER_HOST="unix://$socket"
  COMPOSE=(docker-compose)
else
  die "no container engine: neither docker nor podman answers"
fi

compose() { PROPSYNC_IMAGE_TAG=$TAG "${COMPOSE[@]}" -p "$PROJECT" --env-file deploy/demo.env --profile demo "$@"; }
sql() { compose exec -T postgres psql -U propsync -d propsync -tAc "$1"; }

cleanup() {
  local code=$?
  if [ "$code" -ne 0 ]; then
    say "logs of the failed run"
    compose ps || true
    compose logs --tail 40 || true
  fi
  if [ "${KEEP:-}" != 1 ]; then
    say "down"
    compose down -v --remove-orphans >/dev/null 2>&1 || true
  fi
  [ -n "$healthcheck_loop" ] && kill "$healthcheck_loop" 2>/dev/null || true
  [ -n "$started_service" ] && kill "$started_service" 2>/dev/null || true
  exit "$code"
}
trap cleanup EXIT

T0=$(date +%s)
say "build propsync:$TAG with $ENGINE"
if [ "$ENGINE" = podman ]; then
  # --format docker keeps the Dockerfile's HEALTHCHECK (podman's default OCI format drops it).
  podman build --format docker -t "propsync:$TAG" .
else
  docker build -t "propsync:$TAG" .
fi

if [ "$ENGINE" = podman ]; then
  # Without systemd podman runs no health check by itself, and `up` would wait forever on
  # `condition: service_healthy`: run them here.
  (while sleep 2; do for c in $(podman ps -q); do podman healthcheck run "$c" >/dev/null 2>&1 || true; done; done) &
  healthcheck_loop=$!
fi

say "up: the demo profile with $WORKERS workers"
compose down -v --remove-orphans >/dev/null 2>&1 || true
compose up -d --scale "worker=$WORKERS"

say "nothing that needs the database started before its final 'ready to accept connections'"
# On a fresh volume the postgres image first runs a temporary server (Unix socket only), stops it and
# starts the real one; a health check over the socket would release `migrate` in between.
# Docker says 2026-11-27T13:47:15.06Z; podman 2026-11-27 13:47:15.06 +0000 UTC, whose trailing zone name date refuses.
epoch_ns() { date -d "$(printf '%s' "$1" | sed -E 's/ ([+-][0-9]{4}) [A-Z]+$/ \1/')" +%s%N; }
postgres_id=$(compose ps -q postgres)
ready=""
for _ in $(seq 1 120); do
  ready=$($ENGINE logs -t "$postgres_id" 2>&1 | grep 'ready to accept connections' | tail -n 1 | cut -d' ' -f1)
  migrate_id=$(compose ps -a -q migrate)
  [ -n "$ready" ] && [ -n "$migrate_id" ] && break
  sleep 1
done
[ -n "$ready" ] || die "postgres never logged 'ready to accept connections'"
sleep 2 # a temporary server's ready line would be followed by the final one within this
ready=$($ENGINE logs -t "$postgres_id" 2>&1 | grep 'ready to accept connections' | tail -n 1 | cut -d' ' -f1)
echo "postgres final ready at $ready ($($ENGINE logs "$postgres_id" 2>&1 | grep -c 'ready to accept connections') ready line(s))"
for container in $(compose ps -a -q); do
  [ "$container" = "$postgres_id" ] && continue
  name=$($ENGINE inspect -f '{{.Name}}' "$container")
  started=$($ENGINE inspect -f '{{.State.StartedAt}}' "$container")
  case "$started" in 0001-*) continue ;; esac # not started yet: it waits
  # Only what is given the database (DATABASE_URL) needs it; the simulators start at once.
  $ENGINE inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$container" | grep -q '^DATABASE_URL=' || continue
  [ "$(epoch_ns "$started")" -gt "$(epoch_ns "$ready")" ] || die "$name started at $started, before the database was ready at $ready"
done

say "wait for first-sync (enqueue --wait) to finish"
first_sync=$(compose ps -q first-sync)
[ -n "$first_sync" ] || die "no first-sync container"
code=""
for _ in $(seq 1 600); do
  state=$($ENGINE inspect -f '{{.State.Status}} {{.State.ExitCode}}' "$first_sync")
  case "$state" in exited*) code=${state#exited }; break ;; esac
  sleep 1
done
[ -n "$code" ] || die "first-sync did not finish within 10 minutes"
compose logs --no-color first-sync | tail -n 20
[ "$code" = 0 ] || die "first-sync exited $code"

say "check the warehouse"
for account in north south; do
  leases=$(sql "select count(*) from leases where account_id = '$account'")
  invoices=$(sql "select count(*) from invoices where account_id = '$account'")
  echo "account $account: $leases leases, $invoices invoices"
  [ "$leases" -gt 0 ] && [ "$invoices" -gt 0 ] || die "account $account has no rows"
done
failed=$(sql "select count(*) from sync_work_units where status not in ('done', 'skipped')")
[ "$failed" = 0 ] || die "$failed work units did not succeed"

say "which worker ran what"
busy=0
for container in $(compose ps -q worker); do
  units=$($ENGINE logs "$container" 2>&1 | grep -c '"event":"job_done"' || true)
  echo "worker $($ENGINE inspect -f '{{.Name}}' "$container"): $units jobs done"
  [ "$units" -gt 0 ] && busy=$((busy + 1))
done
[ "$busy" -ge 2 ] || [ "$WORKERS" -lt 2 ] || die "only $busy of $WORKERS workers ran a unit"

say "status from the scheduler's container"
compose exec -T propsync node /app/bin/propsync.mjs status

say "test:container passed in $(( $(date +%s) - T0 ))s"
