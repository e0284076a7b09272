#!/usr/bin/env bash
# End-to-end test of repro slurm against a real Slurm: installs Slurm and
# MUNGE from Debian when they are missing (as root), starts munged,
# slurmctld and slurmd on this machine as a one-node cluster with two CPUs,
# submits the quick profile of a toy experiment as a job array, and checks
# that its results are those of a local repro run -j 1 (compute_seconds
# aside), that every shared artefact was computed once, by the preparation
# job, and that a re-submission runs only what is unfinished. The daemons
# are stopped by their process ids on exit. Run by make test-slurm.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
PORT=${SLURM_TEST_PORT:-16817}
t0=$(date +%s%N)

# since T0 prints the seconds since T0 (from date +%s%N).
since() { local ms=$((($(date +%s%N) - $1) / 1000000)); printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)); }
log() { printf 'test-slurm: %s\n' "$*"; }
fail() { printf 'test-slurm: FAIL: %s\n' "$*" >&2; exit 1; }

need="munged munge slurmctld slurmd sbatch squeue scontrol sinfo"
missing=
for b in $need; do command -v "$b" >/dev/null || missing="$missing $b"; done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || fail "missing$missing; installing Slurm needs root"
	log "installing slurmctld slurmd slurm-client munge (missing:$missing)"
	# Keep the packages from starting daemons of their own.
	policy=/usr/sbin/policy-rc.d
	made=
	if [ ! -e "$policy" ]; then
		printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod +x "$policy" && made=1
	fi
	ok=1
	export DEBIAN_FRONTEND=noninteractive
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends \
		slurmctld slurmd slurm-client munge >/dev/null; } || ok=
	[ -z "$made" ] || rm -f "$policy"
	[ -n "$ok" ] || fail "apt-get install failed"
	log "installed in $(since "$t0") s"
fi

T=$(mktemp -d /tmp/repro-slurm.XXXXXX)
chmod 700 "$T"
pids=()
finish() {
	rc=$?
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	if [ "$rc" != 0 ]; then
		for f in "$T"/slurmctld.log "$T"/slurmd.log "$T"/munge/munged.log "$T"/work/results-slurm/.slurm/logs/*; do
			[ -f "$f" ] && { echo "--- $f"; tail -n 25 "$f"; }
		done
	fi
	rm -rf "$T"
	if [ "$rc" = 0 ]; then log "PASS in $(since "$t0") s"; else log "FAILED after $(since "$t0") s"; fi
	exit "$rc"
}
trap finish EXIT
trap 'exit 130' INT TERM

log "building repro with the toy kinds"
"$GO" build -tags repro_toy -o "$T/bin/repro" ./cmd/repro
REPRO=$T/bin/repro

# MUNGE, with a key and socket of its own.
mkdir -m 700 "$T/munge"
head -c 1024 /dev/urandom >"$T/munge/munge.key"
chmod 400 "$T/munge/munge.key"
SOCK=$T/munge/munge.socket
munged -F --force --key-file="$T/munge/munge.key" --socket="$SOCK" --pid-file="$T/munge/munged.pid" \
	--log-file="$T/munge/munged.log" --seed-file="$T/munge/munged.seed" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 100); do
	munge -n -S "$SOCK" 2>/dev/null | unmunge -S "$SOCK" >/dev/null 2>&1 && break
	sleep 0.1
done
munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null || fail "munged does not answer"

# A one-node cluster.
mkdir -p "$T/state" "$T/spool"
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=reprotest
SlurmctldHost=localhost
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$SOCK
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/slurmctld.log
SlurmdLogFile=$T/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=2 RealMemory=500 State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld -D -i >/dev/null 2>&1 &
pids+=($!)
slurmd -D -N localhost >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 300); do
	[ "$(sinfo -h -N -o %T 2>/dev/null)" = idle ] && break
	sleep 0.1
done
[ "$(sinfo -h -N -o %T)" = idle ] || fail "the node is not idle: $(sinfo -N 2>&1)"
log "cluster up after $(since "$t0") s: $(sinfo -h -N -o '%N %T %c CPUs')"

# A toy experiment: 8 quick cells on 2 splits, each split with a MAP
# artefact and a reference sample.
mkdir "$T/work"
cd "$T/work"
cat >toy.toml <<'EOF'
id = "slurmtoy"
description = "cheap cells for the Slurm integration test"
seed = 3
datasets = ["toygauss"]
splits = [1, 2, 3]

[budget]
steps = 30

[eval]
metrics = ["toymean"]
every = 5

[reference]
kind = "toyref"
particles = 200
settings = { steps = 40 }

[methods.walk-a]
kind = "toywalk"
particles = [5, 10, 20]
settings = { delay_ms = 10 }

[methods.walk-b]
kind = "toywalk"
particles = [5, 10, 20]
settings = { eta = 0.2, delay_ms = 10 }

[profiles.quick]
splits = [1, 2]
[profiles.quick.methods.walk-a]
particles = [5, 10]
[profiles.quick.methods.walk-b]
particles = [5, 10]
EOF

# wait_jobs waits until the queue is empty, then checks that every job
# given (arrays expand to their tasks) completed.
wait_jobs() {
	local i seen=
	for i in $(seq 1200); do
		[ -z "$(squeue -h -o %i)" ] && break
		# Show the first status with a running cell seen while waiting.
		if [ -z "$seen" ] && [ -n "${STATUS_WHILE:-}" ]; then
			seen=$("$REPRO" status toy.toml --profile quick --results "$STATUS_WHILE" | grep -v ' 0 running' || true)
			[ -z "$seen" ] || echo "repro status while the array runs: $seen"
		fi
		sleep 0.1
	done
	[ -z "$(squeue -h -o %i)" ] || fail "jobs still queued after 120 s: $(squeue)"
	local j states
	for j in "$@"; do
		states=$(scontrol -o show job "$j" | grep -o 'JobState=[A-Z_]*' | sort | uniq -c | tr -s ' ')
		case "$states" in
		*COMPLETED*) ;;
		*) fail "job $j: $states" ;;
		esac
		if scontrol -o show job "$j" | grep -v 'JobState=COMPLETED' | grep -q .; then
			fail "job $j: $states"
		fi
	done
}

export REPRO_TOY_LOG=$T/artefacts-slurm.log
t1=$(date +%s%N)
"$REPRO" slurm toy.toml --profile quick --cells-per-task 2 --cpus-per-task 1 --results results-slurm \
	--time 5:00 --submit >array.id 2>submit.err
cat submit.err
aid=$(cat array.id)
pid=$(sed -n 's/.*submitted prepare job \([0-9]*\).*/\1/p' submit.err)
[ -n "$aid" ] && [ -n "$pid" ] || fail "no job ids"
STATUS_WHILE=results-slurm wait_jobs "$pid" "$aid"
log "prepare job $pid and array $aid (4 tasks of 2 cells) completed in $(since "$t1") s"
[ "$(scontrol -o show job "$aid" | wc -l)" = 4 ] || fail "array $aid has not 4 tasks"

st=$("$REPRO" status toy.toml --profile quick --results results-slurm)
echo "repro status: $st"
[ "$st" = "8 cells: 8 done, 0 running, 0 failed, 0 pending, 0 skipped" ] || fail "status"

# Each artefact was computed once, by the preparation job.
sort "$REPRO_TOY_LOG" >artefacts.sorted
printf 'map s1 job %s\nmap s2 job %s\nreference s1 job %s\nreference s2 job %s\n' "$pid" "$pid" "$pid" "$pid" >artefacts.want
diff artefacts.want artefacts.sorted || fail "artefact computations differ from one each by job $pid"

# Nothing half-written or left running.
left=$(find results-slurm \( -name '*.running' -o -name '.*.tmp-*' \) -print)
[ -z "$left" ] || fail "left behind: $left"

# The same results as a local sequential run.
REPRO_TOY_LOG=$T/artefacts-local.log "$REPRO" run toy.toml --profile quick -j 1 --results results-local 2>local.err ||
	{ cat local.err; fail "local run"; }
strip() { (cd "$1" && find . -name '*.csv' | sort | while read -r f; do echo "== $f"; cut -d, -f1-7,9- "$f"; done); }
compare() {
	strip results-local >local.txt
	strip results-slurm >slurm.txt
	[ "$(grep -c '^== ' local.txt)" = 8 ] || fail "local run: $(grep -c '^== ' local.txt) CSV files, want 8"
	diff local.txt slurm.txt >/dev/null || { diff local.txt slurm.txt | head; fail "results differ from the local run"; }
}
compare
log "the 8 CSV files equal the local -j 1 run's, compute_seconds aside"

# Re-submission after losing one cell (index 5, in task 2): only task 2 is
# submitted, its finished cell is not recomputed, the others are untouched.
victim=results-slurm/quick/slurmtoy/walk-b/toygauss/s1/n10
keep=results-slurm/quick/slurmtoy/walk-b/toygauss/s1/n5.json
before=$(find results-slurm -name '*.json' ! -path "$victim.json" | sort | xargs sha256sum)
rm "$victim.json" "$victim.csv"
"$REPRO" slurm toy.toml --profile quick --cells-per-task 2 --results results-slurm --submit >array2.id 2>submit2.err
cat submit2.err
grep -q -- '--array=2)' submit2.err || fail "re-submission is not task 2 alone"
pid2=$(sed -n 's/.*submitted prepare job \([0-9]*\).*/\1/p' submit2.err)
wait_jobs "$pid2" "$(cat array2.id)"
after=$(find results-slurm -name '*.json' ! -path "$victim.json" | sort | xargs sha256sum)
[ "$before" = "$after" ] || fail "finished cells were rewritten"
sort "$REPRO_TOY_LOG" | diff artefacts.want - || fail "artefacts recomputed by the re-submission"
[ -f "$victim.json" ] && [ -f "$keep" ] || fail "the lost cell was not recomputed"
compare
"$REPRO" slurm toy.toml --profile quick --cells-per-task 2 --results results-slurm --submit >array3.id 2>submit3.err
[ ! -s array3.id ] && grep -q 'nothing submitted' submit3.err || fail "a finished run was submitted again"
log "re-submission ran only the unfinished task; a finished run submits nothing"

# Values that a shell or sbatch would read as syntax reach the jobs as
# given: a working directory and a results directory holding blanks,
# quotes, $(), backticks, ';', '#' and '%', a job name and an extra sbatch
# option likewise. No injected command runs (none creates a file PWNED).
odd="$T/work/odd dir 'q' \$(touch PWNED) \`touch PWNED\`; #1 %j"
res="res \"q\" \$(touch PWNED) %x"
name="toy job; touch PWNED #2"
mkdir "$odd"
cp toy.toml "$odd/"
cd "$odd"
REPRO_TOY_LOG=$T/artefacts-odd.log "$REPRO" slurm toy.toml --profile quick --cells-per-task 4 --results "$res" \
	--name "$name" --sbatch "--comment=a b 'c' #d" --submit >array.id 2>submit.err || { cat submit.err; fail "repro slurm with odd values"; }
aid=$(cat array.id)
pid=$(sed -n 's/.*submitted prepare job \([0-9]*\).*/\1/p' submit.err)
wait_jobs "$pid" "$aid"
st=$("$REPRO" status toy.toml --profile quick --results "$res")
[ "$st" = "8 cells: 8 done, 0 running, 0 failed, 0 pending, 0 skipped" ] || fail "odd values: status $st"
for j in "$pid" "$aid"; do
	info=$(scontrol -o show job "$j")
	for want in "WorkDir=$odd" "Comment=a b 'c' #d" "JobName=$name"; do
		grep -qF -- "$want" <<<"$info" || fail "job $j lacks $want: $info"
	done
done
for f in "$name-prepare-$pid.out" "$name-${aid}_0.out" "$name-${aid}_1.out"; do
	[ -f "$odd/$res/.slurm/logs/$f" ] || fail "no log $f in $odd/$res/.slurm/logs: $(ls "$odd/$res/.slurm/logs")"
done
pwned=$(find "$T" -name PWNED)
[ -z "$pwned" ] || fail "an injected command ran: $pwned"
log "odd working and results directories, job name and sbatch option reached the jobs as given"
