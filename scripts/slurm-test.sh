#!/usr/bin/env bash
# Brings up a real one-node Slurm cluster on this machine (Debian's slurm-wlm and munge,
# installed with apt when missing; slurmctld and slurmd on private ports with a minimal
# slurm.conf in a temporary folder; all stopped on exit), then checks `dp-bench slurm`:
#   1. configs/smoke.toml and a Redberg et al. Synthetic-L config (cut to 3 eps x 2 trials)
#      run as job arrays of 4 tasks plus the dependent (afterok) merge job; the merged
#      cells.csv and summary.csv must be byte-identical to a single-process run;
#   2. one task of the Synthetic-L array is cancelled with scancel mid-run; its merge job can
#      then never start; resubmitting that task alone (sbatch --array=K) and merging must give
#      the same bytes again, with no cell lost or duplicated.
# Needs root (or sudo) for apt, munged and slurmd. Exits non-zero on any difference.
#
# Usage: scripts/slurm-test.sh [DP_BENCH_BINARY]   (default: cargo build, target/debug/dp-bench)
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"
export DPBENCH_DATA_MIRROR="${DPBENCH_DATA_MIRROR:-$(cd .. && pwd)/shared/datasets/raw}"
export DPBENCH_OFFLINE=1

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null 2>&1 || { echo "slurm-test: needs root or sudo" >&2; exit 1; }
  sudo="sudo"
fi
if ! command -v slurmctld >/dev/null 2>&1 || ! command -v munged >/dev/null 2>&1; then
  echo "== installing slurm-wlm and munge"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq slurm-wlm munge >/dev/null
fi

if [ $# -ge 1 ]; then
  bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
else
  cargo build --locked --quiet -p dp-bench
  bin="$repo/target/debug/dp-bench"
fi

work="$(mktemp -d /tmp/dpbench-slurm.XXXXXX)"
chmod 755 "$work"
export SLURM_CONF="$work/slurm.conf"
munge_started=0
cleanup() {
  set +e
  if [ -f "$work/slurmctld.pid" ] || [ -f "$work/slurmd.pid" ]; then
    scancel --quiet --user="$(id -un)" 2>/dev/null
    $sudo scontrol shutdown >/dev/null 2>&1
    sleep 2
    for p in slurmctld slurmd; do
      [ -f "$work/$p.pid" ] && $sudo kill "$(cat "$work/$p.pid")" 2>/dev/null
    done
  fi
  if [ $munge_started -eq 1 ]; then
    $sudo kill "$(cat /run/munge/munged.pid)" 2>/dev/null
  fi
  sleep 1
  $sudo rm -rf "$work"
}
trap cleanup EXIT

echo "== starting munged, slurmctld and slurmd ($work)"
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  [ -s /etc/munge/munge.key ] || $sudo mungekey --create 2>/dev/null \
    || $sudo dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
  $sudo chown munge:munge /etc/munge/munge.key
  $sudo chmod 400 /etc/munge/munge.key
  $sudo mkdir -p /run/munge /var/log/munge /var/lib/munge
  $sudo chown munge:munge /run/munge /var/log/munge /var/lib/munge
  $sudo runuser -u munge -- /usr/sbin/munged
  munge_started=1
  sleep 1
fi
host="$(hostname)"
cpus="$(nproc)"
mkdir -p "$work/state" "$work/spool" "$work/log"
cat > "$SLURM_CONF" <<EOF
ClusterName=dpbench-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=16817
SlurmdPort=16818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
$sudo env SLURM_CONF="$SLURM_CONF" slurmctld -f "$SLURM_CONF"
$sudo env SLURM_CONF="$SLURM_CONF" slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o %t 2>/dev/null | grep -q idle && break
  sleep 1
done
sinfo -h -o %t | grep -q idle || { echo "slurm node did not come up" >&2; cat "$work/log/"*; exit 1; }

# Prints every task's and merge's Slurm log (after a failure).
show_logs() {
  for f in "$work"/*/slurm/logs/*; do
    [ -f "$f" ] && { echo "--- $f" >&2; tail -20 "$f" >&2; }
  done
}

# Waits until none of the given jobs is queued or running (at most 20 minutes); fails at once
# when one can never start (a dependency that failed), with the tasks' logs. Only an answer
# from slurmctld counts: a squeue that timed out (a busy controller) prints nothing too.
wait_jobs() {
  local queued
  for _ in $(seq 1200); do
    if queued="$(squeue -h -j "$1" -o '%i %r' 2>"$work/squeue.err")"; then
      [ -z "$queued" ] && return 0
    elif grep -q "Invalid job id" "$work/squeue.err"; then
      return 0 # finished long enough ago to be purged
    fi
    if grep -q DependencyNeverSatisfied <<<"$queued"; then
      echo "jobs $1: a dependency failed" >&2
      squeue >&2
      show_logs
      exit 1
    fi
    sleep 1
  done
  echo "jobs $1 did not finish" >&2
  squeue >&2
  show_logs
  exit 1
}

same() { # same FILE DIR_A DIR_B
  if ! cmp -s "$2/$1" "$3/$1"; then
    echo "FAIL: $1 differs between $2 and $3" >&2
    diff "$2/$1" "$3/$1" | head -20 >&2
    exit 1
  fi
}

cd "$work"
cp "$repo/configs/smoke.toml" smoke.toml
sed -e 's/^trials = .*/trials = 2/' -e 's/^epsilons = .*/epsilons = [0.1, 1.0, 8.0]/' \
  -e '/^paper = /d' "$repo/configs/redberg2023/synthetic-l.toml" > synthetic-l.toml

for c in smoke synthetic-l; do
  echo "== $c: single process"
  "$bin" run "$c.toml" --out "single-$c" --quiet >/dev/null
  echo "== $c: array of 4 tasks + merge"
  "$bin" slurm "$c.toml" --shards 4 --cpus-per-task 1 --out "array-$c" >/dev/null
  jid="$(sbatch --parsable "array-$c/slurm/array.sh")"
  mid="$(sbatch --parsable --dependency="afterok:$jid" "array-$c/slurm/merge.sh")"
  wait_jobs "$jid,$mid"
  test -s "array-$c/summary.csv" || { echo "FAIL: $c merge wrote no summary" >&2; cat "array-$c"/slurm/logs/* >&2; exit 1; }
  same cells.csv "single-$c" "array-$c"
  same summary.csv "single-$c" "array-$c"
  echo "   merged cells.csv and summary.csv are byte-identical to the single-process run"
done

echo "== synthetic-l: cancel one task mid-run, resubmit it alone, merge"
"$bin" slurm synthetic-l.toml --shards 4 --cpus-per-task 1 --out cancelled >/dev/null
jid="$(sbatch --parsable cancelled/slurm/array.sh)"
mid="$(sbatch --parsable --dependency="afterok:$jid" cancelled/slurm/merge.sh)"
victim=1
journal="cancelled/shards/$victim-of-4/cells.log"
for _ in $(seq 600); do
  [ -s "$journal" ] && break
  sleep 0.2
done
scancel "${jid}_$victim"
wait_jobs "$jid"
# The task's job has ended; its process must have too (it holds the shard's run lock), or the
# resubmitted task would rightly refuse the folder as another run's.
released=0
for _ in $(seq 120); do
  flock -n "cancelled/shards/$victim-of-4/.dp-bench.lock" true && { released=1; break; }
  sleep 0.5
done
if [ $released -eq 0 ]; then
  echo "FAIL: the cancelled task still holds its shard's lock 60 s after its job ended" >&2
  ps -ef | grep "[d]p-bench" >&2
  exit 1
fi
done_before="$(wc -l < "$journal" 2>/dev/null || echo 0)"
if "$bin" merge cancelled >/dev/null 2>&1; then
  echo "FAIL: merge succeeded with a cancelled shard" >&2
  exit 1
fi
state="$(squeue -h -j "$mid" -o %r)"
echo "   task $victim cancelled after $done_before cells; merge job $mid waits: $state"
scancel "$mid"
rid="$(sbatch --parsable --array="$victim" cancelled/slurm/array.sh)"
mid="$(sbatch --parsable --dependency="afterok:$rid" cancelled/slurm/merge.sh)"
wait_jobs "$rid,$mid"
same cells.csv single-synthetic-l cancelled
same summary.csv single-synthetic-l cancelled
echo "   resubmitted task $victim: $(($(wc -l < cancelled/cells.csv) - 1)) cells, byte-identical to the single-process run"
echo "slurm-test: OK"
