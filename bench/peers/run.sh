#!/usr/bin/env bash
# Interleaved rounds of the Go SVGD benchmarks and the two peers.
#   run.sh ROUNDS GO_TEST_BINARY [GO_TEST_BINARY ...] > LOG; python3 summary.py LOG
# Each Go binary is pkg/svgd's test binary (go test -c -o svgd.test ./pkg/svgd),
# run from pkg/svgd's directory; its label in the log is its file name.
# Peers use Debian's python3-torch and python3-numpy (/usr/bin/python3), one
# thread; PEER_THREADS2=1 adds PyTorch on two threads ("torch2").
set -euo pipefail
rounds=$1; shift
here=$(cd "$(dirname "$0")" && pwd)
svgd=$(cd "$here/../../pkg/svgd" && pwd)
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1
PY=${PY:-/usr/bin/python3}
for r in $(seq 1 "$rounds"); do
	echo "# round $r load $(cut -d' ' -f1 /proc/loadavg)"
	for bin in "$@"; do
		label=$(basename "$bin")
		(cd "$svgd" && "$bin" -test.run '^$' -test.bench 'BenchmarkIteration$' -test.benchtime 200x -test.count 5) |
			grep '^Benchmark' | sed "s|^|go $label |"
		(cd "$svgd" && "$bin" -test.run '^$' -test.bench 'BenchmarkIterationBNN$' -test.benchtime 100x -test.count 5) |
			grep '^Benchmark' | sed "s|^|go $label |"
	done
	for peer in torch numpy; do
		"$PY" "$here/svgd_peers.py" $peer logistic 200 5
		"$PY" "$here/svgd_peers.py" $peer network 50 5
	done
	if [ -n "${PEER_THREADS2:-}" ]; then
		PEER_THREADS=2 OMP_NUM_THREADS=2 "$PY" "$here/svgd_peers.py" torch logistic 200 5
		PEER_THREADS=2 OMP_NUM_THREADS=2 "$PY" "$here/svgd_peers.py" torch network 50 5
	fi
done
