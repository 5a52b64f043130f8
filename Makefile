# lnbench: `make` builds ./lnbench, `make test` runs the tests, `make bench` the main job,
# `make hunt` the worst-case search, `make plugin-example` the example plugin.
# Options: CC=clang, NATIVE=1 (-march=native), SAN=1 (ASan + UBSan), WERROR=1, BUILD=dir, QUICK=1 (bench),
# DEBUG=-g (full debug information; default -g1),
# PEERS=torch (installs libtorch-dev: PyTorch's layer norm as a peer; TORCH= leaves it out),
# ARCH=aarch64 (cross build into build-aarch64/, tests under qemu-user: docs/arm.md).

CC ?= cc
comma := ,
CXX ?= g++
ifeq ($(origin CC),default)
CC := cc
endif
ifeq ($(CC),clang)
CXX := clang++
endif

# ARCH=aarch64 on a machine of another architecture: a cross build with Debian's aarch64-linux-gnu
# toolchain and arm64 libraries (installed on demand), into build-aarch64/; its tests and commands
# run under qemu-user (scripts/run-aarch64), the tests once per SVE vector length in TEST_SVE_VL. The
# peer libraries (oneDNN, PyTorch) are left out of the cross build. On an aarch64 machine plain
# `make` builds natively and ARCH is not needed.
HOST_ARCH := $(shell uname -m)
ifneq ($(filter-out $(HOST_ARCH),$(ARCH)),)
ifneq ($(ARCH),aarch64)
$(error ARCH=$(ARCH): the one cross target is ARCH=aarch64)
endif
CROSS := aarch64-linux-gnu-
CC := $(CROSS)gcc
CXX := $(CROSS)g++
BUILD ?= build-aarch64
EMULATE := scripts/run-aarch64
TEST_SVE_VL ?= 128 256 512
# The test binaries that run kernels, repeated at each further vector length (the rest, and
# their tests that cannot see the vector length, run at the first only: tests/vl_repeat.h).
TEST_VL_DEPENDENT := test_kernels test_simd test_half test_lowp test_ops test_edge test_registry test_verdicts
export PKG_CONFIG_LIBDIR := /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig
endif

OPT ?= -O2
# -g1: line tables and functions (backtraces, sanitizer reports, perf annotate), the same code as
# any -g level. DEBUG=-g adds the variables for a debugger: the inlined kernel loops' full debug
# information doubled a clean build (2 cores: 207 s against 112; bf16-lnbwd-f32acc-avx512.c alone
# 15.5 s against 6.8), the larger part of `make bench` on a fresh machine.
DEBUG ?= -g1
# -ffp-contract=off: no silent a*b+c fusion, so each kernel's arithmetic is the one its
# source (and its error bound) states; kernels that want FMA ask for it explicitly.
CFLAGS_BASE := -std=c11 $(OPT) $(DEBUG) -Wall -Wextra -ffp-contract=off -D_GNU_SOURCE
CXXFLAGS_BASE := -std=c++17 $(OPT) $(DEBUG) -Wall -Wextra
# Layering, enforced by the include paths each layer compiles with: common/ sees only itself,
# kernels/ and reference/ see common/; the harness's floors, lowest first (README.md's tree), each
# see common/, kernels/, reference/ and the floors below them, so a header included from a floor
# above fails to build: base (errors and parsing, the kernel set and plugins, atomic output,
# tables, statistics), inputs, measure, output, tune, load (results read back), analysis (what
# is computed from them), report (what is written of them), hunt, verbs, then main.c. The tests
# and fuzzers see everything. A kernel that includes a harness header fails to build.
HARNESS_FLOORS := base inputs measure output tune load analysis report hunt verbs
HARNESS_DIRS := harness $(HARNESS_FLOORS:%=harness/%)
INC_common := -Icommon
INC_kernels := -Icommon -Ikernels
INC_reference := -Icommon -Ireference
INC_all := -Icommon -Ikernels -Ireference $(HARNESS_DIRS:%=-I%)
# floor_inc(FLOOR): the include flags of FLOOR: the three lower layers, FLOOR and every floor below it
floor_inc = -Icommon -Ikernels -Ireference $(patsubst %,-Iharness/%,$(call floors_to,$(1),$(HARNESS_FLOORS)))
floors_to = $(if $(2),$(firstword $(2)) $(if $(filter $(1),$(firstword $(2))),,$(call floors_to,$(1),$(wordlist 2,99,$(2)))))
LDLIBS := -lmpfr -lgmp -lbenchmark -ljansson -lpthread -lm -ldl

ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
BUILD ?= build-san
else
BUILD ?= build
endif
# FUZZ=1 (set by `make fuzz`): clang with libFuzzer's coverage hooks plus ASan and UBSan. ASan
# checks each access by a call rather than an inline branch (SAN_CODEGEN, on compile lines only:
# clang takes the option once): the same checks, but the wide kernels' unrolled loops otherwise
# grow CFGs that clang 14's branch-probability analysis takes minutes over
# (f16-rmsbwd-f32acc-avx512.c: 4 min, 46 s with calls; the whole library 12 min, was 28-35).
ifeq ($(FUZZ),1)
CC := clang
CXX := clang++
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
SAN_CODEGEN := -mllvm -asan-instrumentation-with-call-threshold=0
BUILD := $(if $(filter command line,$(origin BUILD)),$(BUILD),build-fuzz)
endif
ifeq ($(NATIVE),1)
CFLAGS_BASE += -march=native
endif
# WERROR=1 (CI): every warning fails the build.
ifeq ($(WERROR),1)
CFLAGS_BASE += -Werror
CXXFLAGS_BASE += -Werror
endif

# Install missing Debian packages before anything below looks for them (a fresh machine's
# first `make test` or `make bench` must just work); silent when nothing is missing.
ifeq ($(filter clean,$(MAKECMDGOALS)),)
$(shell LNBENCH_PEERS=$(PEERS) LNBENCH_CROSS=$(CROSS) scripts/install-deps.sh >&2)
ifneq ($(.SHELLSTATUS),0)
$(error scripts/install-deps.sh failed: see its message above)
endif
endif

# The architecture whose kernels (kernels/<arch>/) this compiler builds: the LN_ARCH line of
# kernels/isa.def one of whose prefixes starts the target triple; none: portable C only.
KARCH := $(firstword $(shell t=$$($(CC) -dumpmachine); sed -n 's/^LN_ARCH.\([a-z0-9_]*\), "\(.*\)".$$/\1 \2/p' kernels/isa.def | \
          while read a p; do for q in $$p; do case $$t in ($$q*) echo $$a;; esac; done; done))
ONEDNN := $(if $(CROSS),,$(if $(wildcard /usr/include/oneapi/dnnl/dnnl.h),1,))
# PyTorch's layer norm as a peer (ext-torch-*) where Debian's libtorch-dev is installed: an
# opt-in (`make bench PEERS=torch` installs it), see docs/peers.md.
TORCH := $(if $(CROSS),,$(if $(wildcard /usr/include/ATen/native/layer_norm.h),1,))

GIT_COMMIT := $(shell git describe --always --dirty 2>/dev/null || echo unknown)
GBENCH_VERSION := $(shell pkg-config --modversion benchmark 2>/dev/null || echo unknown)
DEFS := -DLN_GIT_COMMIT='"$(GIT_COMMIT)"' -DLN_GBENCH_VERSION='"$(GBENCH_VERSION)"' \
        -DLN_CFLAGS='"$(CC) $(OPT)$(if $(filter 1,$(NATIVE)), -march=native)$(if $(SANFLAGS), $(SANFLAGS))"'
ifeq ($(ONEDNN),1)
DEFS += -DLN_HAVE_ONEDNN=1
LDLIBS += -ldnnl
endif
ifeq ($(TORCH),1)
DEFS += -DLN_HAVE_TORCH=1
LDLIBS += -ltorch_cpu -lc10
endif

# harness/output/meta.c writes the commit and the flags into every results file: it is rebuilt when they
# change (the stamp is rewritten only then), so a result never names a stale commit.
META_STAMP := $(BUILD)/.meta-defs
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(file <$(META_STAMP)),$(DEFS))
$(shell mkdir -p $(BUILD))
$(file >$(META_STAMP),$(DEFS))
endif
endif

# Every object and binary depends on a stamp of the flags they are built with (compilers, options,
# sanitizers, -march=native, the peers compiled in and linked: PEERS, TORCH, NATIVE, SAN, CC, ...),
# rewritten only when they change, so a changed flag rebuilds what it affects and never links
# objects of two configurations. The commit is left out: it changes meta.o alone (above).
FLAGS_STAMP := $(BUILD)/.build-flags
BUILD_FLAGS := $(CC) | $(CXX) | $(CFLAGS_BASE) $(SANFLAGS) $(SAN_CODEGEN) $(EXTRA_CFLAGS) | $(CXXFLAGS_BASE) | \
               $(filter-out -DLN_GIT_COMMIT=%,$(DEFS)) | $(LDFLAGS) $(LDLIBS)
ifeq ($(filter clean,$(MAKECMDGOALS)),)
ifneq ($(file <$(FLAGS_STAMP)),$(BUILD_FLAGS))
$(shell mkdir -p $(BUILD))
$(file >$(FLAGS_STAMP),$(BUILD_FLAGS))
endif
endif

CFLAGS := $(CFLAGS_BASE) $(DEFS) $(SANFLAGS) $(SAN_CODEGEN) $(EXTRA_CFLAGS)
CXXFLAGS := $(CXXFLAGS_BASE) $(SANFLAGS) $(SAN_CODEGEN)
LDFLAGS += $(SANFLAGS)

LIB_C := $(wildcard common/*.c kernels/*.c kernels/scalar/*.c reference/*.c) \
         $(filter-out harness/main.c,$(wildcard $(HARNESS_DIRS:%=%/*.c))) \
         $(if $(KARCH),$(wildcard kernels/$(KARCH)/*.c)) $(if $(ONEDNN),$(wildcard kernels/ext/*onednn*.c)) \
         $(if $(TORCH),$(wildcard kernels/ext/*torch*.c))
LIB_CC := $(wildcard $(HARNESS_DIRS:%=%/*.cc)) $(if $(TORCH),kernels/ext/torch.cc)
LIB_OBJ := $(LIB_C:%.c=$(BUILD)/%.o) $(LIB_CC:%.cc=$(BUILD)/%.o)
TEST_SRC := $(wildcard tests/test_*.c)
TEST_BIN := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)

# Each kernel file of the architecture is compiled for the ISA its name ends in, with the flags of
# that ISA's line in kernels/isa.def (the table dispatch and `lnbench list` read too), and sees its
# architecture's vector layers and the algorithm templates (kernels/simd/); the rest of the binary
# stays portable, and the registry runs a kernel only where the CPU says it can.
ISA_NAMES := $(shell sed -n 's/^LN_ISA.\([a-z0-9_]*\), [A-Z0-9_]*, $(KARCH),.*/\1/p' kernels/isa.def)
$(foreach i,$(ISA_NAMES),$(eval $$(BUILD)/kernels/$(KARCH)/%-$(i).o: ISAFLAGS = \
    $(shell sed -n 's/^LN_ISA.$(i),.*"\(.*\)".$$/\1/p' kernels/isa.def)))
# UBSan's C++-only checks (vptr; clang's function) need the C++ sanitizer runtime, which the
# C-linked test and fuzz binaries lack; libtorch is not instrumented anyway.
$(BUILD)/kernels/ext/torch.o: CXXFLAGS += $(if $(SANFLAGS),-fno-sanitize=vptr$(if $(filter clang%,$(CXX)),$(comma)function))
# common/dtype.h's format table uses C array designators, which g++ and clang++ accept in C++ as an
# extension; clang++ warns about it, so torch.cc (the one C++ file that includes it) says so.
$(BUILD)/kernels/ext/torch.o: CXXFLAGS += $(if $(filter clang%,$(CXX)),-Wno-c99-designator)

.PHONY: all test clean fuzz
all: lnbench

$(BUILD)/harness/output/meta.o: $(META_STAMP)
$(LIB_OBJ) $(BUILD)/harness/main.o $(BUILD)/lnbench $(TEST_BIN): $(FLAGS_STAMP)

$(BUILD)/common/%.o: LAYER_INC = $(INC_common)
$(BUILD)/kernels/%.o: LAYER_INC = $(INC_kernels)
$(BUILD)/reference/%.o: LAYER_INC = $(INC_reference)
$(BUILD)/kernels/$(KARCH)/%.o: LAYER_INC = $(INC_kernels) -Ikernels/$(KARCH) -Ikernels/simd
$(BUILD)/harness/%.o: LAYER_INC = $(INC_all)
$(foreach f,$(HARNESS_FLOORS),$(eval $$(BUILD)/harness/$(f)/%.o: LAYER_INC = $$(call floor_inc,$(f))))

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LAYER_INC) $(ISAFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/%.o: %.cc
	@mkdir -p $(dir $@)
	$(CXX) $(CXXFLAGS) $(LAYER_INC) -MMD -MP -c $< -o $@

$(BUILD)/liblnbench.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/lnbench: $(BUILD)/harness/main.o $(BUILD)/liblnbench.a
	$(CXX) $(LDFLAGS) $(filter-out $(FLAGS_STAMP),$^) $(LDLIBS) -o $@

lnbench: $(BUILD)/lnbench
	cp $< $@

$(BUILD)/tests/%: tests/%.c $(BUILD)/liblnbench.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_all) -Itests -MMD -MP $< $(BUILD)/liblnbench.a -o $@ -lcmocka $(LDLIBS) -lstdc++ $(LDFLAGS)

PLUGIN_BAD := $(patsubst %,$(BUILD)/tests/plugin-bad-%.so,nosymbol abi noname noforward duplicate)
PLUGIN_HOSTILE := $(patsubst %,$(BUILD)/tests/plugin-hostile-%.so,gamma scratch stats nan exit crash op name)
# A cross build's tests run under $(EMULATE): the whole list at the first SVE vector length, the
# kernel tests again at each further one, with LNBENCH a script that runs the aarch64 lnbench
# the same way.
# make test, make bench and make fuzz build with one compile per core (a fresh machine spends a third of make
# bench compiling), then run their timed and tested steps in series: -j is given to the build's
# sub-make only, never to the recipes that time kernels.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_NEEDS = $(TEST_BIN) $(BUILD)/lnbench $(BUILD)/plugin-example.so $(PLUGIN_BAD) $(PLUGIN_HOSTILE) \
             $(BUILD)/tests/plugin-tune.so $(BUILD)/tests/plugin-planted.so $(if $(EMULATE),$(BUILD)/lnbench-emu)
.PHONY: build-test build-bench
build-test:
	@$(MAKE) --no-print-directory -j$(JOBS) $(TEST_NEEDS)
build-bench:
	@$(MAKE) --no-print-directory -j$(JOBS) $(BUILD)/lnbench lnbench

test: build-test
	@LNBENCH=$(BUILD)/lnbench$(if $(EMULATE),-emu) LNBENCH_PLUGIN_DIR=$(BUILD) \
	    $(if $(EMULATE),LNBENCH_RUN=$(EMULATE) LNBENCH_VLS='$(TEST_SVE_VL)' LNBENCH_VL_TESTS='$(TEST_VL_DEPENDENT)') tests/run.sh $(TEST_BIN)

$(BUILD)/lnbench-emu: $(EMULATE)
	@printf '#!/bin/sh\nexec %s %s "$$@"\n' "$(abspath $(EMULATE))" "$(abspath $(BUILD)/lnbench)" > $@
	@chmod +x $@

# `make plugin-example`: examples/plugin/ built as a shared library that `lnbench --plugin` loads
# (docs/plugins.md). Plugins are built without the sanitizers: any lnbench build loads them.
PLUGIN_FLAGS := $(CFLAGS_BASE) -fPIC -shared $(INC_kernels)
.PHONY: plugin-example
plugin-example: $(BUILD)/plugin-example.so
$(BUILD)/plugin-example.so: examples/plugin/f32-example-twopass.c kernels/kernel.h kernels/bounds.h common/dtype.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_FLAGS) $< -o $@ -lm
$(BUILD)/tests/plugin-bad-%.so: tests/fixtures/plugin_bad.c kernels/kernel.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_FLAGS) -DBAD_$(shell echo $* | tr a-z A-Z) $< -o $@
# Kernels with tunables for the tests of lnbench tune (tests/test_tune.c).
$(BUILD)/tests/plugin-tune.so: tests/fixtures/plugin_tune.c kernels/kernel.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_FLAGS) $< -o $@ -lm
# One kernel per op with a bug on rows no built-in distribution draws (tests/test_hunt.c).
$(BUILD)/tests/plugin-planted.so: tests/fixtures/plugin_planted.c kernels/kernel.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_FLAGS) $< -o $@ -lm
$(BUILD)/tests/plugin-hostile-%.so: tests/fixtures/plugin_hostile.c kernels/kernel.h kernels/bounds.h
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_FLAGS) -DHOSTILE_$(shell echo $* | tr a-z A-Z) $< -o $@ -lm

# `make bench`, the main job: the default accuracy sweep, the timing sweep (Google Benchmark;
# cache- and memory-resident inputs, probes beside, at 1 thread and at every core), the same for
# the other ops, smaller (bench-ops, below), and a one-line-per-kernel summary per op, all in
# $(RESULTS)/, then the sweeps, figures and report (REPORT.md, report.html), and a copy of the
# results in $(RESULTS)/history/<machine>/<date>-<commit>/. Every timing sweep takes 10
# repetitions: the fewest at which lnbench compare, after its correction for the ~500 tests of
# two such runs, can call a change significant (docs/timing.md); memory at 64 MiB, where the
# probes already stream from memory, so that a repetition costs its min time. QUICK=1: 2 D,
# 3 repetitions (compare calls changes between QUICK runs inconclusive), shorter min time.
# Budget: docs/timing.md. BENCH_ARGS=... adds flags to the LayerNorm timing run.
BENCH_ACCURACY_DISTS := normal,offset:1e4,offset:1e6,const,outlier:1000
# 1 and every core (BENCH_THREADS=1: one thread only)
BENCH_THREADS ?= $(shell n=$$(nproc 2>/dev/null || echo 1); [ "$$n" -gt 1 ] && echo 1,$$n || echo 1)
ifeq ($(QUICK),1)
BENCH_ACCURACY_FLAGS := --dist $(BENCH_ACCURACY_DISTS) --D 768,4096 --rows 4
BENCH_TIMING_FLAGS := --D 768,4096 --bytes 1M,64M --max-call-seconds 0.2 --threads $(BENCH_THREADS) \
                      --benchmark_repetitions=3 --benchmark_min_time=0.02
else
BENCH_ACCURACY_FLAGS := --dist $(BENCH_ACCURACY_DISTS) --D 768,4096
BENCH_TIMING_FLAGS := --D 1024,4096,16384 --bytes 1M,64M --max-call-seconds 0.2 --threads $(BENCH_THREADS) \
                      --benchmark_repetitions=10 --benchmark_min_time=0.01
endif
# The other operators (docs/ops.md) after the LayerNorm runs: per op a small accuracy sweep (D 768,
# 3 distributions) and timing run (D 4096, cache and memory, 10 repetitions) of every kernel,
# each written whole to its own files in $(RESULTS)/ops/ (scripts/bench-ops.sh), so a rerun
# replaces them; report, summary, merge and compare read a results folder with its ops/ (make
# bench clears ops/ first, so the folder holds one run). The rmsnorm run times at BENCH_THREADS
# too. Budget: about 51 s for the five ops on the idle 2-core Zen 5 VM (D 1024 too took 85 s).
BENCH_OPS := rmsnorm layernorm-bwd rmsnorm-bwd add-rmsnorm add-layernorm
BENCH_OPS_ACCURACY_FLAGS := --dist normal,offset:1e4,outlier:1000 --D 768
BENCH_OPS_TIMING_FLAGS := --D 4096 --bytes 1M,64M --max-call-seconds 0.1 --benchmark_repetitions=10 \
                          --benchmark_min_time=0.01
# The tuning of this machine (make tune; docs/tune.md): make bench times every kernel with the
# tunables it chose when the file exists (said on the terminal and in bench.csv.meta.json), at the
# built-in defaults otherwise. TUNING=FILE names another file, TUNING=none runs the defaults.
TUNING ?= $(RESULTS)/tuning/$(shell $(BUILD)/lnbench tune --machine-id 2>/dev/null || echo unknown).json
TUNING_ARGS = $(if $(filter-out none,$(TUNING)),$(if $(wildcard $(TUNING)),--tuning $(TUNING)))
.PHONY: bench bench-ops compare history
bench: build-bench
	@mkdir -p $(BUILD) && date +%s > $(BUILD)/.bench-start
	@rm -f $(RESULTS)/ops/accuracy-*.csv* $(RESULTS)/ops/bench-*.csv* $(RESULTS)/ops/bench-*.json
	@echo "make bench: $(if $(TUNING_ARGS),tunables from $(TUNING) (make tune wrote it),no tuning file ($(TUNING)): every kernel at its built-in defaults (make tune writes one))"
	$(BUILD)/lnbench accuracy --quiet $(BENCH_ACCURACY_FLAGS) --out $(RESULTS)/accuracy.csv
	LNBENCH_SKIP_NOTED=1 $(BUILD)/lnbench bench --quiet $(BENCH_TIMING_FLAGS) --out $(RESULTS)/bench.csv $(TUNING_ARGS) $(BENCH_ARGS)
	@LNBENCH_SKIP_NOTED=1 $(MAKE) --no-print-directory bench-ops TUNING='$(TUNING)'
	@echo
	@$(BUILD)/lnbench summary $(RESULTS)
	@LNBENCH_SKIP_NOTED=1 $(MAKE) --no-print-directory sweeps report history
	@echo "make bench: $$(( $$(date +%s) - $$(cat $(BUILD)/.bench-start) )) s wall time; results in $(RESULTS)/"

bench-ops: $(BUILD)/lnbench
	@LNBENCH=$(BUILD)/lnbench BENCH_OPS='$(BENCH_OPS)' BENCH_THREADS='$(BENCH_THREADS)' \
	    ACCURACY_FLAGS='$(BENCH_OPS_ACCURACY_FLAGS)' TIMING_FLAGS='$(BENCH_OPS_TIMING_FLAGS) $(TUNING_ARGS)' \
	    scripts/bench-ops.sh $(RESULTS)

# `make tune`: lnbench tune over every kernel this CPU runs that has tunables (the SIMD kernels), at
# bench's D and regimes, then each other op at D 1024, 4096 (as bench-ops); the budget is 2 s per
# search unless TUNE_SECONDS (LayerNorm) or TUNE_OPS_SECONDS (each other op) say otherwise; writes $(TUNING) (results/tuning/<machine>.json), which make
# bench then uses. docs/tune.md. TUNE_ARGS=... adds flags (e.g. --kernels, --threads 1,2).
TUNE_SECONDS ?=
TUNE_OPS_SECONDS ?=
.PHONY: tune
tune: $(BUILD)/lnbench
	$(BUILD)/lnbench tune $(if $(TUNE_SECONDS),--seconds $(TUNE_SECONDS)) --out $(TUNING) $(TUNE_ARGS)
	@for op in $(BENCH_OPS); do \
	    $(BUILD)/lnbench tune --op $$op --D 1024,4096 $(if $(TUNE_OPS_SECONDS),--seconds $(TUNE_OPS_SECONDS)) --out $(TUNING) $(TUNE_ARGS) || exit $$?; \
	done

# `make check`: an accuracy sweep judged against every kernel's contract (kernels/kernel.h): exit
# status 1 when any case's verdict is fail, one line per failure with the command that dumps it.
# CHECK_KERNELS: lnbench's own kernels by default; the peer libraries' failures are findings
# about them (CHECK_KERNELS='*' includes them). CHECK_FLAGS: the cases.
CHECK_KERNELS ?= f64-*,f32-*,f16-*,bf16-*
CHECK_FLAGS ?= --dist normal,offset:1e4,const,huge,tiny --D 2,3,768,4096 --eps 1e-5,0 --rows 4
.PHONY: check
check: $(BUILD)/lnbench
	@mkdir -p $(RESULTS)
	$(BUILD)/lnbench accuracy --check --quiet --kernels '$(CHECK_KERNELS)' $(CHECK_FLAGS) --out $(RESULTS)/check.csv

history: $(BUILD)/lnbench
	@LNBENCH=$(BUILD)/lnbench scripts/history.sh $(RESULTS)

# `make compare BASE=... [NEW=...]`: lnbench compare on two runs (results folders or
# bench.json files; NEW defaults to $(RESULTS)), or, when BASE is a git revision, builds it in a
# temporary git worktree and times both binaries here, alternating repetitions
# (COMPARE_REPS, default 7: with the ~70 kernel benchmarks of COMPARE_BENCH_ARGS on a 2-core AVX2
# machine, the fewest a side at which a Holm-adjusted p can reach 0.05), then times the kernels it
# flagged COMPARE_REPS rounds more, alternated, before the verdict. COMPARE_FLAGS: lnbench
# compare's options (default --only-changed; --threshold PCT, --cross-machine, --allow-missing);
# COMPARE_LOCK=FILE: the timing holds flock on FILE.
# Exit 1 when a kernel is slower, 3 when a change could not be tested. See docs/timing.md.
COMPARE_REPS ?= 7
COMPARE_FLAGS ?= --only-changed
COMPARE_BENCH_ARGS ?= --D 768,4096 --bytes 1M,256M --max-call-seconds 0.2 --benchmark_min_time=0.05
compare: $(BUILD)/lnbench
	@[ -n "$(BASE)" ] || { echo "usage: make compare BASE=<results folder, bench.json or git revision> [NEW=...]" >&2; exit 2; }
	@LNBENCH=$(BUILD)/lnbench COMPARE_REPS='$(COMPARE_REPS)' COMPARE_LOCK='$(COMPARE_LOCK)' COMPARE_BENCH_ARGS='$(COMPARE_BENCH_ARGS)' \
	    COMPARE_FLAGS='$(COMPARE_FLAGS)' scripts/compare.sh '$(BASE)' '$(if $(NEW),$(NEW),$(RESULTS))' '$(RESULTS)'

# `make format` applies the house style (.clang-format, clang-format 14) to every tracked C/C++
# file; `make format-check` (CI) fails, naming the lines, where a file departs from it.
FORMAT_SRC = $(shell git ls-files '*.c' '*.h' '*.cc')
.PHONY: format format-check
format:
	@LNBENCH_FORMAT_DEPS=1 scripts/install-deps.sh
	clang-format-14 -i $(FORMAT_SRC)
format-check:
	@LNBENCH_FORMAT_DEPS=1 scripts/install-deps.sh
	@clang-format-14 --dry-run --Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files in the house style"

# `make fuzz SECONDS=N`: builds each libFuzzer target fuzz/fuzz_<name>.c into build-fuzz/ and
# runs it N seconds on a working corpus (build-fuzz/corpus/<name>) seeded from fuzz/corpus/<name>
# and tests/regress/<name> (past failures, replayed first under clang's sanitizers); a failing
# input lands in build-fuzz/crashes/<name>/ (replay: build-fuzz/fuzz/<name> FILE).
FUZZ_TARGETS := $(patsubst fuzz/%.c,%,$(wildcard fuzz/fuzz_*.c))
SECONDS ?= 60
fuzz:
	@LNBENCH_FUZZ_DEPS=1 scripts/install-deps.sh
	@$(MAKE) --no-print-directory -j$(JOBS) FUZZ=1 $(FUZZ_TARGETS:%=build-fuzz/fuzz/%)
	@for t in $(FUZZ_TARGETS); do \
	    mkdir -p build-fuzz/corpus/$$t build-fuzz/crashes/$$t; \
	    echo "fuzz: $$t for $(SECONDS) s"; \
	    build-fuzz/fuzz/$$t -max_total_time=$(SECONDS) -print_final_stats=1 \
	        -artifact_prefix=build-fuzz/crashes/$$t/ build-fuzz/corpus/$$t fuzz/corpus/$$t \
	        $$([ -d tests/regress/$$t ] && echo tests/regress/$$t) || exit 1; \
	done

$(BUILD)/fuzz/%: fuzz/%.c $(BUILD)/liblnbench.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(INC_all) -MMD -MP $< $(BUILD)/liblnbench.a -o $@ $(LDLIBS) -lstdc++ $(LDFLAGS) -fsanitize=fuzzer

# `make hunt`: `lnbench hunt --every-op` over every kernel of every op this CPU runs, HUNT_SECONDS
# of search each at D = HUNT_D (a list; a few minutes in all): the rows and one line per kernel
# and D in $(RESULTS)/hunt/hunt.csv, where `lnbench hunt` writes it too (results/README.md;
# docs/hunt.md). Exit status 1 when a kernel broke its bound.
HUNT_SECONDS ?= 3
HUNT_D ?= 768
.PHONY: hunt
hunt: $(BUILD)/lnbench
	$(BUILD)/lnbench hunt --every-op --quiet --D $(HUNT_D) --seconds $(HUNT_SECONDS) --out $(RESULTS)/hunt

# Figures and report from a run's results (gnuplot-nox; see docs/plots.md).
# `make sweeps` runs the two small accuracy sweeps behind the conditioning and eps figures
# (seconds); `make plots` runs them first when their CSVs are missing.
RESULTS ?= results
SWEEP_OFFSETS := offset:1,offset:10,offset:1e2,offset:1e3,offset:1e4,offset:1e5,offset:1e6,offset:1e7
.PHONY: sweeps plots report
sweeps: $(BUILD)/lnbench
	$(BUILD)/lnbench accuracy --quiet --dist $(SWEEP_OFFSETS) --D 4096 --rows 8 --out $(RESULTS)/conditioning.csv
	$(BUILD)/lnbench accuracy --quiet --dist const,zero,tiny --eps 1e-12,1e-6,1e-5,1e-3 --D 1024 --rows 8 \
	    --out $(RESULTS)/eps.csv

plots: $(BUILD)/lnbench
	@if [ -s $(RESULTS)/accuracy.csv ] || [ -s $(RESULTS)/bench.csv ]; then \
	    [ -s $(RESULTS)/conditioning.csv ] && [ -s $(RESULTS)/eps.csv ] || $(MAKE) --no-print-directory sweeps; fi
	@LNBENCH=$(BUILD)/lnbench scripts/plots.sh $(RESULTS)

report: plots
	@$(BUILD)/lnbench report $(RESULTS)

clean:
	rm -rf build build-san build-aarch64 lnbench

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
