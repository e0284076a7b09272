#!/usr/bin/env bash
# make test-long: the checks that make test leaves out for time, with
# MMDFW_LONG=1 (under make test each of them skips, saying so):
#   - pkg/sp TestKnown on gauss50 (one to two minutes);
#   - internal/pdbcheck: HMC's default settings against posteriordb's
#     reference draws on all thirteen staged posteriors, and the methods'
#     contract on all four of its posteriors (make test-posteriordb; about
#     five minutes on 2 cores);
#   - the fuzz targets of every reader of outside files, FUZZTIME_LONG
#     (15s) each, under a soft memory limit of 512 MiB set by each target:
#     posteriordb's reference draws and data zips, a CSV file of one's own,
#     experiment files (TOML) and provenance JSON (about two minutes);
#   - repro verify: five committed cells of the full profile, drawn with
#     a seed that changes with every commit, recomputed within a minute
#     of recorded compute time and compared with their committed CSVs.
# A check that skips here (e.g. without ../shared/posteriordb) has not
# passed: the script then fails, naming it.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
log=$(mktemp)
trap 'rm -f "$log"' EXIT
export MMDFW_LONG=1
"$GO" test -count=1 -timeout 1h -v -run '^TestKnown$' ./pkg/sp 2>&1 | tee -a "$log"
"$GO" test -count=1 -timeout 1h -v -run 'Posteriordb' ./internal/pdbcheck 2>&1 | tee -a "$log"
fuzztime=${FUZZTIME_LONG:-15s}
for target in ./pkg/posteriordb:FuzzReference ./pkg/posteriordb:FuzzUnzipData \
	./pkg/data:FuzzReadCSV ./pkg/harness:FuzzLoadConfig ./pkg/harness:FuzzReadProvenance; do
	pkg=${target%%:*} name=${target#*:}
	echo "fuzz $pkg $name ($fuzztime)"
	"$GO" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" -parallel 2 "$pkg" 2>&1 | tee -a "$log"
done
bin=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$bin"' EXIT
"$GO" build -o "$bin/repro" ./cmd/repro
data=${DATA_DIR:-data}
if [ ! -d "$data" ] && [ -d ../shared/data ]; then
	data=../shared/data
fi
seed=$(git rev-list --count HEAD 2>/dev/null || echo 1)
"$bin/repro" verify --profile full --data-dir "$data" --sample 5 --budget 60s --seed "$seed" -j 2 experiments/*.toml 2>&1 | grep -v ' INFO ' | tee -a "$log"
if grep -- '--- SKIP' "$log"; then
	echo "test-long: the checks above skipped, so they have not passed" >&2
	exit 1
fi
echo "test-long: every long check ran and passed"
