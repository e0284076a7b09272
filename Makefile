# Every command a user or CI needs. See README.md.
GO       ?= go
DATA_DIR ?= data
# Offline machines use a sibling ../shared/data folder as the mirror when it exists.
MIRROR   ?= $(wildcard ../shared/data)
REPRO    := bin/repro

.PHONY: all build test race lint bench data fuzz clean

all: build

build:
	$(GO) build -o $(REPRO) ./cmd/repro

# The test command of README.md and .ci/run.
# The model and dense packages have amd64 assembly; their portable Go paths
# are tested too.
test: lint
	$(GO) test -count=1 ./...
	$(GO) test -count=1 -tags noasm ./pkg/model ./pkg/dense

# The checks make test leaves out for time, each of which skips there
# saying so: Stein Points' known-target check on gauss50 and the whole of
# internal/pdbcheck (make test-posteriordb); about seven minutes on 2 cores.
# Then the fuzz targets of the readers of outside files, FUZZTIME_LONG each
# (15s: about two minutes for the five).
# A check that skips here (e.g. without ../shared/posteriordb) fails the
# target. .ci/run runs it after test.
.PHONY: test-long
test-long:
	GO=$(GO) bash scripts/test-long.sh

# Every package under the race detector (.ci/run runs it after test). The
# zero-allocation assertions are not counted there: the detector's
# instrumentation allocates (internal/race).
race:
	$(GO) test -race -count=1 -timeout 30m ./...

# staticcheck at a pinned version, fetched through the Go module proxy on
# first use (then from the module cache); STATICCHECK=staticcheck uses one
# on PATH instead.
STATICCHECK ?= $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(STATICCHECK) ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

clean:
	rm -rf bin

# Fetch every dataset into $(DATA_DIR): from the mirror when there is one,
# else from the upstream URLs.
data: build
	$(REPRO) data fetch --data-dir $(DATA_DIR) $(if $(MIRROR),--mirror $(MIRROR))

# Every method's zero settings on the known targets of pkg/sampler/samplertest:
# the table of errors, flags and verdicts (about three minutes on 2 cores, most
# of it Stein Points on gauss50).
.PHONY: known-table
known-table:
	$(GO) run ./internal/probe/knowntable

# pkg/hmc's default settings against posteriordb's reference draws on all
# thirteen staged posteriors (../shared/posteriordb; skipped without it), and
# the methods' contract on four of them (internal/pdbcheck; about five
# minutes on 2 cores). make test runs the HMC check on three of them and the
# contract on two.
.PHONY: test-posteriordb
test-posteriordb:
	MMDFW_LONG=1 $(GO) test -count=1 -timeout 1h -v -run 'Posteriordb' ./internal/pdbcheck

# Run each fuzz target of the readers of outside files briefly (pkg/data's
# parsers and CSV, pkg/posteriordb's zip and JSON, pkg/harness's experiment
# files and provenance); FUZZTIME per target. make test-long runs the
# readers' targets too, for less time each.
FUZZTIME ?= 10s
FUZZPKGS := ./pkg/data ./pkg/posteriordb ./pkg/harness
fuzz:
	@for p in $(FUZZPKGS); do \
		for f in $$($(GO) test -list '^Fuzz' $$p | grep '^Fuzz'); do \
			echo "fuzz $$p $$f ($(FUZZTIME))"; \
			$(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$p || exit 1; \
		done; \
	done

# ---- Reproduction of the paper (experiments/*.toml) -------------------------
# PROFILE selects each file's profile (full: the paper's scale on the data
# present; quick: minutes). RUNFLAGS go to `repro run` (e.g. -j 1 for the timed
# experiments fig1a, fig2a, table1; see experiments/fig1a.toml). The data folder
# reaches the experiments through --data-dir (or $MMDFW_DATA).
# The full profile's outputs are results/, figures/ and REPORT.md (committed);
# the quick profile's go under quick/ (ignored), so that a quick run never
# replaces the committed figures and report. (Cells cannot collide anyway:
# each profile's cells live under <results>/<profile>/.) `repro run` ends by
# saying where the time went: per experiment, per reference, and waiting.
PROFILE     ?= full
RUNFLAGS    ?=
OUT          = $(if $(filter quick,$(PROFILE)),quick/,)
RESULTS      = $(OUT)results
FIGURES      = $(OUT)figures
REPORT       = $(OUT)REPORT.md
EXPERIMENTS := $(wildcard experiments/*.toml)
RUN          = $(REPRO) run --data-dir $(DATA_DIR) --profile $(PROFILE) --results $(RESULTS) $(RUNFLAGS)

.PHONY: reproduce-quick reproduce-all run-all fig1 fig2 table1 rff ablations plots report

# Every experiment's quick profile, then the figures and the report (made
# even when a cell failed, which the report lists; the exit status is the run's).
reproduce-quick: data
	$(MAKE) --no-print-directory run-all PROFILE=quick

# Every experiment's full profile, then the figures and the report.
reproduce-all: data
	$(MAKE) --no-print-directory run-all PROFILE=full

run-all: build
	$(RUN) $(EXPERIMENTS); \
	status=$$?; $(MAKE) --no-print-directory plots report PROFILE=$(PROFILE) && exit $$status

fig1: data
	$(RUN) experiments/fig1a.toml experiments/fig1b.toml

fig2: data
	$(RUN) experiments/fig2a.toml experiments/fig2b.toml

table1: data
	$(RUN) experiments/table1.toml

rff: data
	$(RUN) experiments/rff.toml

ablations: data
	$(RUN) experiments/ablations.toml

plots: build
	$(REPRO) plot --profile $(PROFILE) --results $(RESULTS) --figures $(FIGURES) $(EXPERIMENTS)

report: build
	$(REPRO) report --profile $(PROFILE) --results $(RESULTS) --figures $(FIGURES) --out $(REPORT) $(EXPERIMENTS)

# End-to-end test against a real one-node Slurm started on this machine
# (installs slurmctld, slurmd, slurm-client and munge from Debian when missing;
# needs root then). See scripts/test-slurm.sh.
.PHONY: test-slurm
test-slurm:
	GO=$(GO) bash scripts/test-slurm.sh
