#!/usr/bin/env bash
# samples/node/pg-pool against a real PostgreSQL: a throwaway cluster of the
# test's own (Debian's postgresql, scripts/setup.sh --test), on a free
# 127.0.0.1 port, started before the run and stopped after it. The run's
# verdict must be the sample's label, with its cause naming pg's Pool (see
# the end); SKIP (77) where PostgreSQL is not installed.
#   pg_pool.sh
source "$(dirname "$0")/lib.sh"
sample=$ROOT/samples/node/pg-pool
read -r label cause_label _ < "$sample/label" || true

pg_bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[[ -x ${pg_bin:-}/initdb && -x $pg_bin/pg_ctl ]] ||
  { echo "SKIP: no PostgreSQL server (/usr/lib/postgresql/<version>/bin/initdb): scripts/setup.sh --test installs it"; exit 77; }
# PostgreSQL refuses to run as root: the cluster belongs to the postgres
# user the package made, in a folder of its own ($WORK is root's, 0700).
as_pg=()
if [[ $(id -u) -eq 0 ]]; then
  id postgres >/dev/null 2>&1 || { echo "SKIP: running as root and no postgres user to own the cluster"; exit 77; }
  as_pg=(runuser -u postgres --)
fi
# From / : the postgres user may not enter this test's folder.
pg() { (cd / && "${as_pg[@]}" "$@"); }
pgdir=$(mktemp -d /tmp/ld-pg.XXXXXX)
[[ ${#as_pg[@]} -eq 0 ]] || chown postgres "$pgdir"
stop_pg() {
  local rc=$?
  pg "$pg_bin/pg_ctl" -D "$pgdir/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$pgdir"
  # drop_work reads the test's status from $?; errexit must not end the trap there.
  set +e
  (exit $rc); drop_work
}
trap stop_pg EXIT
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
# trust on 127.0.0.1 and the socket: a cluster that lives for one test.
pg "$pg_bin/initdb" -D "$pgdir/data" -U postgres -A trust -E UTF8 --no-sync >"$pgdir/initdb.log" 2>&1 ||
  { cat "$pgdir/initdb.log" >&2; fail "initdb failed"; }
# Bounded: pg_ctl -w waits at most -t seconds for the server to accept.
pg "$pg_bin/pg_ctl" -D "$pgdir/data" -l "$pgdir/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $port -k $pgdir -c fsync=off -c max_connections=20" start >/dev/null ||
  { cat "$pgdir/server.log" >&2; fail "PostgreSQL did not start"; }

rc=0
PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=postgres \
  timeout 90 "$LD" run --load / -c 50 -d 5s --json out.json -o report.html --no-record \
  -- node "$sample/server.js" > stdout.txt 2> stderr.txt || rc=$?
[[ $rc -eq 0 ]] || { cat stderr.txt >&2; fail "loopdoctor exited $rc"; }
verdict=$(json_get out.json 'j.verdict')
cause=$(json_get out.json '(j.issues[0]||{}).cause || ""')
failed=$(json_get out.json 'j.figures.failed_requests || 0')
echo "pg-pool against PostgreSQL on 127.0.0.1:$port: verdict $verdict${cause:+ ($cause)}, $failed failed requests"
json_get out.json '(j.issues[0]||{}).summary || ""'
[[ $failed -eq 0 ]] || fail "$failed requests failed: did the sample reach PostgreSQL? $(tail -3 stderr.txt)"
[[ $verdict == "$label" ]] || fail "verdict $verdict != label $label"
# The cause names pg's pool, read by the probe (lib/driver-pools.js): the
# destination, its queue and the driver with its version.
[[ $cause == "$cause_label" ]] || fail "cause ${cause:-none} != label $cause_label"
cause_text=$(json_get out.json '(j.issues[0]||{}).cause_text || ""')
echo "  cause: $cause_text"
[[ $cause_text == "connection-pool 127.0.0.1:$port, pg 8."*"'s Pool: 4 connections, "*" queries waiting for one"* ]] ||
  fail "the cause does not name pg's Pool of 4 to 127.0.0.1:$port with its queue: $cause_text"
echo ok
