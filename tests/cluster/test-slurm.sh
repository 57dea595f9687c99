#!/usr/bin/env bash
# test-slurm.sh — a sharded corpus run on a real Slurm: starts Debian's munged, slurmctld and
# slurmd on this machine (one node named after this host, CPUs=2, proctrack/linuxproc, no cgroup,
# every file in a temporary folder, ports of their own), submits a 4-task array job of
# `attnscope stats --lines CORPUS --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT -o ...`
# (the README's recipe), merges the parts and checks that the result is byte for byte what one
# process prints. Everything started is stopped at the end, on failure too. Speaks TAP; skips
# (with the reason) when not root, when the Slurm or munge programs are missing, or when the
# daemons do not start; every wait has a time limit, so it never hangs.
set -u

echo "1..1"
skip() {
  echo "ok 1 # SKIP $*"
  exit 0
}
fail() {
  echo "not ok 1 - $*"
  for f in "$tmp"/*.log; do
    [ -f "$f" ] && { echo "# --- $f"; tail -n 20 "$f" | sed 's/^/# /'; }
  done
  exit 1
}

[ "$(id -u)" = 0 ] || skip "needs root to start slurmctld, slurmd and munged"
for p in munged slurmctld slurmd sbatch scontrol sinfo; do
  command -v "$p" >/dev/null 2>&1 || skip "$p is not installed (.ci/install-deps test installs it)"
done
: "${ATTNSCOPE_BIN:?}" "${ATTNSCOPE_SOURCE_DIR:?}"

tmp=$(mktemp -d /tmp/attnscope-slurm.XXXXXX)
chmod 700 "$tmp"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null
  done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

host=$(hostname -s)
port=$((20000 + $$ % 20000))
export SLURM_CONF="$tmp/slurm.conf"

# munge: a key of our own and a socket of our own (the system's munged is left alone)
dd if=/dev/urandom of="$tmp/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge.key"
munged --force --key-file="$tmp/munge.key" --socket="$tmp/munge.socket" \
  --pid-file="$tmp/munged.pid" --log-file="$tmp/munged.log" --seed-file="$tmp/munge.seed" \
  >/dev/null 2>&1 || skip "munged did not start: $(tail -n 1 "$tmp/munged.log" 2>/dev/null)"
pids+=("$(cat "$tmp/munged.pid")")

mkdir -p "$tmp/state" "$tmp/spool"
cat >"$SLURM_CONF" <<CONF
ClusterName=attnscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge.socket
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=attnscope Nodes=$host Default=YES MaxTime=10 State=UP
CONF

slurmctld -D -i -f "$SLURM_CONF" >"$tmp/slurmctld.out" 2>&1 &
pids+=("$!")
slurmd -D -f "$SLURM_CONF" >"$tmp/slurmd.out" 2>&1 &
pids+=("$!")

# the node comes up idle within 30 s, or the daemons could not start here
state=
for _ in $(seq 60); do
  state=$(timeout 5 sinfo -h -n "$host" -o %t 2>/dev/null)
  case "$state" in idle*) break ;; esac
  sleep 0.5
done
case "$state" in
  idle*) ;;
  *) skip "the Slurm daemons did not bring node $host up within 30 s (state '${state:-none}'):" \
    "$(tail -n 1 "$tmp/slurmctld.log" 2>/dev/null) / $(tail -n 1 "$tmp/slurmd.log" 2>/dev/null)" ;;
esac
echo "# $(sinfo --version), node $host $state, munge $(munged --version 2>&1 | head -n 1)"

model="$ATTNSCOPE_SOURCE_DIR/data/models/attnscope-mini"
corpus="$tmp/corpus.txt"
head -n 48 "$model/heldout.txt" >"$corpus"
cat >"$tmp/job.sh" <<JOB
#!/bin/sh
exec "$ATTNSCOPE_BIN" stats --model "$model" --lines "$corpus" --json \\
  --shard "\$SLURM_ARRAY_TASK_ID/\$SLURM_ARRAY_TASK_COUNT" -o "$tmp/part-\$SLURM_ARRAY_TASK_ID.json"
JOB
chmod +x "$tmp/job.sh"

start=$(date +%s)
timeout 90 sbatch --wait --array=0-3 --ntasks=1 --cpus-per-task=1 --time=2 \
  --output="$tmp/job-%a.log" --chdir="$tmp" "$tmp/job.sh" >"$tmp/sbatch.log" 2>&1 ||
  fail "the array job failed or timed out: $(cat "$tmp/sbatch.log") $(cat "$tmp"/job-*.log 2>/dev/null)"
echo "# array job: $(head -n 1 "$tmp/sbatch.log"), $(($(date +%s) - start)) s"

for k in 0 1 2 3; do
  [ -s "$tmp/part-$k.json" ] || fail "task $k wrote no part: $(cat "$tmp/job-$k.log" 2>/dev/null)"
done
merged=$("$ATTNSCOPE_BIN" merge --json "$tmp"/part-*.json) || fail "merge failed"
single=$("$ATTNSCOPE_BIN" stats --model "$model" --lines "$corpus" --json) || fail "stats failed"
[ "$merged" = "$single" ] || fail "the merged result differs from one process"
# each task ran its own shard of 4 (12 of the 48 lines)
for k in 0 1 2 3; do
  grep -q "\"shard\":$k,\"shards\":4" "$tmp/part-$k.json" || fail "part $k is not shard $k/4"
  grep -q "\"items\":12,\"result\"" "$tmp/part-$k.json" || fail "part $k does not hold 12 lines"
done
echo "ok 1 - 4-task Slurm array job of stats --shard merged equals one process ($(echo "$single" | wc -c) bytes of JSON)"
