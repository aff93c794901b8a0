# kgrade's build.
#
#   make          build build/kgrade
#   make test     build and run every test (unit, unit under ASan+UBSan, web, python, integration, fuzz)
#   make test-notebooks  the course's four notebooks through the kgrade Jupyter kernel (a minute)
#   make run      install what is missing, build, run the main job
#   make bench    run the benchmarks (each prints a ratio against a baseline of the same run)
#   make calibrate  the timing model against three published tables (minutes)
#   make fidelity   the timing model against times measured on a real GPU (minutes)
#   make fmt      format the C sources with clang-format
#   make clean    remove build/
#
# CUDA_HOME (default /usr/local/cuda) locates NVRTC and cuda.h.

CUDA_HOME ?= /usr/local/cuda
VERSION   := 0.1.0
GIT_REV   := $(shell git rev-parse --short HEAD 2>/dev/null)
KGRADE_VERSION := $(VERSION)$(if $(GIT_REV),+g$(GIT_REV))

ifeq ($(origin CC),default)
CC := gcc
endif
CLANG ?= clang

# Build on every core; the tests themselves run one after another.
MAKEFLAGS += -j$(shell nproc)

BUILD := build

# `make V=1` shows the full commands.
ifeq ($(V),1)
Q :=
else
Q := @
endif

# Modules linked into build/kgrade, in dependency order.
GRADER_SRC  := $(sort $(wildcard grader/*.c))
SANDBOX_SRC := $(sort $(wildcard sandbox/*.c))
# The migrations travel inside the binary: a generated C file.
DB_GEN      := $(BUILD)/gen/db_migrations.c
DB_SRC      := $(sort $(wildcard db/*.c))
SERVER_SRC  := $(sort $(filter-out server/main.c,$(wildcard server/*.c)))
LIB_SRC     := $(GRADER_SRC) $(SANDBOX_SRC) $(DB_SRC) $(SERVER_SRC)

JANSSON_CFLAGS := $(shell pkg-config --cflags jansson 2>/dev/null)
JANSSON_LIBS   := $(shell pkg-config --libs jansson 2>/dev/null || echo -ljansson)
CURL_LIBS      := $(shell pkg-config --libs libcurl 2>/dev/null || echo -lcurl)

CPPFLAGS := -I. -I$(CUDA_HOME)/include -DKGRADE_CUDA_HOME=\"$(CUDA_HOME)\" $(JANSSON_CFLAGS) -D_GNU_SOURCE \
            -DKGRADE_VERSION='"$(KGRADE_VERSION)"'
WARNINGS := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
            -Wformat=2 -Wvla
# Floating-point expressions are never fused into multiply-adds, whatever
# the compiler and the target (grader/rng.c's AVX-512 clone, clang's
# default): inputs and the virtual GPU's arithmetic are the same bits on
# every host.
FP_EXACT := -ffp-contract=off
CFLAGS   := -std=c11 $(WARNINGS) $(FP_EXACT) -O2 -g -fno-strict-aliasing -MMD -MP
NVRTC_LIBS := -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 -lnvrtc
# libstdc++ provides the C++ demangler (__cxa_demangle) for kernel names.
LDLIBS   := $(NVRTC_LIBS) $(JANSSON_LIBS) $(CURL_LIBS) -lcmark -lmicrohttpd -lseccomp -lsqlite3 -lsodium -lstdc++ -lm -lpthread

SANITIZE := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

# Build variants: plain objects in build/obj, sanitized ones in build/asan.
OBJ      := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/gen/db_migrations.o
ASAN_OBJ := $(LIB_SRC:%.c=$(BUILD)/asan/%.o) $(BUILD)/asan/gen/db_migrations.o

# The virtual GPU: build/emulator/libcuda.so.1, a CUDA driver of its own. It
# uses libc, libm and pthreads only; only what cuda.h and kgemu.h declare is
# exported (EMU_EXPORT), everything else is hidden.
# The remote driver's client (emulator/remote_client*.c) is a library of
# its own (REMOTE_LIB below), not a part of it.
REMOTE_CLIENT_SRC := $(sort $(wildcard emulator/remote_client*.c))
EMU_SRC      := $(filter-out $(REMOTE_CLIENT_SRC),$(sort $(wildcard emulator/*.c)))
EMU_OBJ      := $(EMU_SRC:%.c=$(BUILD)/obj/%.o)
EMU_ASAN_OBJ := $(EMU_SRC:%.c=$(BUILD)/asan/%.o)
EMU_LIB      := $(BUILD)/emulator/libcuda.so.1
EMU_CFLAGS   := -fPIC -fvisibility=hidden -frounding-math
EMU_LIBS     := -lm -lpthread
# Its compiled tier (emulator/jit.c, emulator/JIT.md) uses LLVM's ORC LLJIT
# through the C API: Debian's llvm-16-dev (deploy/install-deps.sh). Only the
# emulator's objects see LLVM's headers and link it; without it they fail
# at once with what to install (EMU_NEED_LLVM).
LLVM_CONFIG  ?= llvm-config-16
LLVM_INCLUDE := $(shell $(LLVM_CONFIG) --includedir 2>/dev/null)
LLVM_LIBDIR  := $(shell $(LLVM_CONFIG) --libdir 2>/dev/null)
EMU_CFLAGS   += $(if $(LLVM_INCLUDE),-isystem $(LLVM_INCLUDE))
EMU_LIBS     += $(if $(LLVM_LIBDIR),-L$(LLVM_LIBDIR) $(shell $(LLVM_CONFIG) --libs orcjit native 2>/dev/null))
EMU_NEED_LLVM = $(if $(LLVM_INCLUDE),,$(error $(LLVM_CONFIG) not found: the virtual GPU needs LLVM 16 (Debian's llvm-16-dev); run 'make deps' as root or set LLVM_CONFIG))

# The remote driver's client: a CUDA driver that forwards every call to a
# virtual GPU in another process (kgemu_serve; emulator/README.md, "The
# remote driver"). It shares the protocol's messages (remote_io.c) with it.
REMOTE_LIB   := $(BUILD)/emulator/remote/libcuda.so.1
REMOTE_OBJ   := $(REMOTE_CLIENT_SRC:%.c=$(BUILD)/obj/%.o) $(BUILD)/obj/emulator/remote_io.o

# Unit tests of the virtual GPU's parts (test_emu_*) link its objects.
EMU_UNIT_SRC := $(sort $(wildcard tests/unit/test_emu_*.c))
UNIT_SRC   := $(filter-out $(EMU_UNIT_SRC),$(sort $(wildcard tests/unit/test_*.c)))
# Programs written only against cuda.h, run on the virtual GPU.
GPU_SRC    := $(sort $(wildcard tests/gpu/test_*.c))
GPU_BIN    := $(GPU_SRC:tests/gpu/%.c=$(BUILD)/tests/gpu/%)
CORPUS_SRC := $(sort $(wildcard tests/corpus/*.cu))
CORPUS_PTX := $(CORPUS_SRC:tests/corpus/%.cu=$(BUILD)/corpus/%.ptx)
UNIT_BIN   := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
UNIT_ASAN  := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/asan/tests/unit/%)
EMU_UNIT_BIN  := $(EMU_UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/unit/%)
EMU_UNIT_ASAN := $(EMU_UNIT_SRC:tests/unit/%.c=$(BUILD)/asan/tests/unit/%)
FUZZ_SRC   := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN   := $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
BENCH_SRC  := $(sort $(wildcard tests/bench/bench_*.c))
BENCH_BIN  := $(BENCH_SRC:tests/bench/%.c=$(BUILD)/bench/%)
# The calibration against published tables (tests/calibrate/): the tables and
# their runners, shared by build/calibrate (make calibrate) and the GPU test
# test_literature; they compile with the grader and run on cuda.h like the GPU tests.
# Two programs of their own: build/calibrate and build/fidelity (make fidelity).
CALIB_MAIN := tests/calibrate/calibrate.c tests/calibrate/fidelity.c
CALIB_OBJ  := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out $(CALIB_MAIN),$(sort $(wildcard tests/calibrate/*.c))))
# The times measured on a real GPU that make fidelity holds the model to.
FIDELITY_DATASET ?= tests/device/h200-2026-11-28.json
CALIB_LIBS := -L$(CUDA_HOME)/lib64/stubs -lcuda $(LDLIBS)
# The job the sandbox's tests run inside it (a plain program), and the
# libraries it loads: one it names, which needs the other.
SANDBOX_JOB  := $(BUILD)/tests/sandbox/job
SANDBOX_LIBS := $(BUILD)/tests/sandbox/libkgrade_named.so $(BUILD)/tests/sandbox/libkgrade_needed.so

# The web pages' editor: CodeMirror 6 bundled by esbuild from the npm
# packages web/package-lock.json pins. Built, never committed; without npm
# (or before it is built) the pages use a plain text area.
WEB_BUNDLE  := $(BUILD)/web/editor.js
WEB_MODULES := web/node_modules/.package-lock.json
HAVE_NPM    := $(shell command -v npm 2>/dev/null)
WEB_TARGETS := $(if $(HAVE_NPM),$(WEB_BUNDLE))

# The Python client (clients/python/kgrade_client, standard library only)
# zipped for download at /clients/kgrade_client.zip: `python3
# kgrade_client.zip submit …` runs it (zipapp's __main__.py at the root) and
# a notebook imports it from the zip. Built where python3 is.
PY_CLIENT_SRC := $(sort $(wildcard clients/python/kgrade_client/*.py))
PY_CLIENT_ZIP := $(BUILD)/web/kgrade_client.zip
HAVE_PYTHON   := $(shell command -v python3 2>/dev/null)
PY_TARGETS    := $(if $(HAVE_PYTHON),$(PY_CLIENT_ZIP))

# The Numba front end, beside the binary: a grading job of a Numba source
# runs it in the sandbox with Debian's python3 (server/grading_job.c), with
# numba's shims for this toolkit beside it (grader/numba_shims.py), which
# `kgrade run` applies too, and the module loader it shares with the host
# job (grader/numba_loader.py); the host job's script (grader/numba_host.py:
# an exercise's host form, the student's function called on a served GPU).
NUMBA_FRONT_END := $(BUILD)/numba_compile.py $(BUILD)/numba_shims.py $(BUILD)/numba_loader.py \
                   $(BUILD)/numba_host.py
# `kgrade run`'s Python site folder: server/run_sitecustomize.py as the
# sitecustomize.py first on the PYTHONPATH of the programs it starts.
RUN_SITE := $(BUILD)/run-site/sitecustomize.py
# What `kgrade run` and the `kgrade` Jupyter kernel need beside the binary.
RUN_TARGETS := $(EMU_LIB) $(REMOTE_LIB) $(NUMBA_FRONT_END) $(RUN_SITE)

.PHONY: FORCE all deps deps-check test test-unit test-asan test-web test-python test-integration test-full \
        test-references test-notebooks test-gpu test-fuzz run test-browser screenshots bench calibrate fidelity web \
        fmt fmt-check clean

all: deps-check $(BUILD)/kgrade $(RUN_TARGETS) $(WEB_TARGETS) $(PY_TARGETS)

web: $(WEB_BUNDLE)

$(WEB_MODULES): web/package.json web/package-lock.json
	@echo "  NPM     web/node_modules"
	$(Q)cd web && npm ci --no-audit --no-fund --loglevel=error
	$(Q)touch $@

$(WEB_BUNDLE): web/editor/editor.js $(WEB_MODULES)
	@mkdir -p $(dir $@)
	@echo "  ESBUILD $@"
	$(Q)web/node_modules/.bin/esbuild $< --bundle --format=esm --minify --target=es2020 \
	    --log-level=warning --outfile=$@

$(NUMBA_FRONT_END): $(BUILD)/%.py: grader/%.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

$(RUN_SITE): server/run_sitecustomize.py
	@mkdir -p $(dir $@)
	$(Q)cp $< $@

# Only the package's modules go in (no __pycache__, no tests), staged apart.
$(PY_CLIENT_ZIP): $(PY_CLIENT_SRC)
	@mkdir -p $(dir $@)
	@echo "  ZIPAPP  $@"
	$(Q)rm -rf $(BUILD)/pyclient && mkdir -p $(BUILD)/pyclient/kgrade_client
	$(Q)cp $^ $(BUILD)/pyclient/kgrade_client/
	$(Q)python3 -m zipapp $(BUILD)/pyclient --main kgrade_client.cli:run --compress --output $@

# Quick (a dpkg query): says what is missing and how to install it.
deps-check:
	@deploy/install-deps.sh --check

# Installs what is missing (root), then checks the CUDA toolkit.
deps:
	@deploy/install-deps.sh

$(BUILD)/kgrade: $(BUILD)/obj/server/main.o $(OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

# The version is baked into one object only, rebuilt when the version changes.
$(BUILD)/obj/server/cli_main.o $(BUILD)/asan/server/cli_main.o $(BUILD)/obj/grader/grade_json.o \
    $(BUILD)/asan/grader/grade_json.o: $(BUILD)/version.stamp
$(BUILD)/version.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(KGRADE_VERSION)' | cmp -s - $@ || echo '$(KGRADE_VERSION)' > $@

$(DB_GEN): db/embed-migrations.sh $(sort $(wildcard db/migrations/*.sql))
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	$(Q)db/embed-migrations.sh $@ $(sort $(wildcard db/migrations/*.sql))

$(BUILD)/obj/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/asan/gen/%.o: $(BUILD)/gen/%.c
	@mkdir -p $(dir $@)
	@echo "  CC ASAN $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -c -o $@ $<

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/obj/emulator/%.o: emulator/%.c
	$(EMU_NEED_LLVM)
	@mkdir -p $(dir $@)
	@echo "  CC EMU  $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(EMU_CFLAGS) -c -o $@ $<

$(BUILD)/asan/emulator/%.o: emulator/%.c
	$(EMU_NEED_LLVM)
	@mkdir -p $(dir $@)
	@echo "  CC ASAN $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(EMU_CFLAGS) $(SANITIZE) -c -o $@ $<

$(EMU_LIB): $(EMU_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libcuda.so.1 -Wl,--no-undefined -o $@ $^ $(EMU_LIBS)

$(REMOTE_LIB): $(REMOTE_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -shared -Wl,-soname,libcuda.so.1 -Wl,--no-undefined -o $@ $^ -lpthread

$(BUILD)/asan/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC ASAN $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -c -o $@ $<

# Unit tests: cmocka programs linked with the modules' objects (static
# pattern rules, so which objects a test links never depends on rule order).
$(UNIT_BIN): $(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

$(UNIT_ASAN): $(BUILD)/asan/tests/unit/%: $(BUILD)/asan/tests/unit/%.o $(ASAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD ASAN $@"
	$(Q)$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(LDLIBS) -lcmocka

# They may include the compiled tier's headers (LLVM's C API).
$(EMU_UNIT_SRC:%.c=$(BUILD)/obj/%.o) $(EMU_UNIT_SRC:%.c=$(BUILD)/asan/%.o): \
    CPPFLAGS += $(if $(LLVM_INCLUDE),-isystem $(LLVM_INCLUDE))

$(EMU_UNIT_BIN): $(BUILD)/tests/unit/%: $(BUILD)/obj/tests/unit/%.o $(EMU_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(EMU_LIBS) -lcmocka

$(EMU_UNIT_ASAN): $(BUILD)/asan/tests/unit/%: $(BUILD)/asan/tests/unit/%.o $(EMU_ASAN_OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD ASAN $@"
	$(Q)$(CC) $(CFLAGS) $(SANITIZE) -o $@ $^ $(EMU_LIBS) -lcmocka

# GPU tests: C programs written against cuda.h alone, linked with the
# toolkit's stub libcuda.so and NVRTC, run with LD_LIBRARY_PATH=build/emulator
# (the stub's soname is libcuda.so.1, so the virtual GPU is what loads).
$(BUILD)/tests/gpu/%: tests/gpu/%.c $(wildcard tests/gpu/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC GPU  $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda $(NVRTC_LIBS) -lm

# The loader's corpus: sample-like CUDA compiled by nvcc, as third-party code
# is (tests/gpu/test_corpus.c loads every module).
$(BUILD)/corpus/%.ptx: tests/corpus/%.cu
	@mkdir -p $(dir $@)
	@echo "  NVCC    $<"
	$(Q)$(CUDA_HOME)/bin/nvcc -arch=sm_90 -ptx -std=c++17 -lineinfo -o $@ $<

$(BUILD)/tests/gpu/test_corpus: $(CORPUS_PTX)

# They run children whose driver is the remote driver's client.
$(BUILD)/tests/gpu/test_remote_driver $(BUILD)/tests/gpu/test_remote_served: $(REMOTE_LIB)

# The GPU test of the published tables' orderings links the calibration's tables.
$(BUILD)/tests/gpu/test_literature: tests/gpu/test_literature.c $(CALIB_OBJ) $(OBJ) $(wildcard tests/gpu/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC GPU  $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(CALIB_OBJ) $(OBJ) $(CALIB_LIBS)

$(BUILD)/calibrate $(BUILD)/fidelity: $(BUILD)/%: $(BUILD)/obj/tests/calibrate/%.o $(CALIB_OBJ) $(OBJ)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(CALIB_LIBS)

$(SANDBOX_JOB): tests/sandbox/job.c $(SANDBOX_LIBS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -lpthread

$(BUILD)/tests/sandbox/libkgrade_needed.so: tests/sandbox/needed.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -Wl,-soname,$(notdir $@) -o $@ $<

# It finds the library it needs beside it, through its RUNPATH.
$(BUILD)/tests/sandbox/libkgrade_named.so: tests/sandbox/named.c $(BUILD)/tests/sandbox/libkgrade_needed.so
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -shared -Wl,-soname,$(notdir $@) -o $@ $< \
	    -L$(dir $@) -lkgrade_needed -Wl,--enable-new-dtags,-rpath,'$$ORIGIN'

# Fuzz targets: libFuzzer with clang, sources compiled fresh with coverage.
$(BUILD)/fuzz/%: tests/fuzz/%.c $(LIB_SRC) $(DB_GEN) $(wildcard */*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(Q)$(CLANG) $(CPPFLAGS) -std=c11 $(WARNINGS) $(FP_EXACT) -g -O1 -fsanitize=fuzzer,address,undefined \
	    -o $@ $< $(LIB_SRC) $(DB_GEN) $(LDLIBS)

# Fuzz targets of the virtual GPU's parsers build with its sources instead.
$(BUILD)/fuzz/fuzz_emu_%: tests/fuzz/fuzz_emu_%.c $(EMU_SRC) $(wildcard emulator/*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZ    $@"
	$(EMU_NEED_LLVM)
	$(Q)$(CLANG) $(CPPFLAGS) $(if $(LLVM_INCLUDE),-isystem $(LLVM_INCLUDE)) -std=c11 $(WARNINGS) $(FP_EXACT) -g -O1 \
	    -fsanitize=fuzzer,address,undefined -o $@ $< $(EMU_SRC) $(EMU_LIBS)

# Benchmarks of the virtual GPU are GPU programs too (cuda.h + NVRTC).
$(BUILD)/bench/bench_emu%: tests/bench/bench_emu%.c $(EMU_LIB)
	@mkdir -p $(dir $@)
	@echo "  CC GPU  $<"
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< -L$(CUDA_HOME)/lib64/stubs -lcuda $(NVRTC_LIBS) -lm -lpthread

$(BUILD)/bench/%: $(BUILD)/obj/tests/bench/%.o $(OBJ)
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

test: deps $(BUILD)/kgrade $(RUN_TARGETS) $(WEB_TARGETS) $(PY_TARGETS) $(UNIT_BIN) $(UNIT_ASAN) $(EMU_UNIT_BIN) $(EMU_UNIT_ASAN) \
      $(SANDBOX_JOB) $(GPU_BIN) $(BUILD)/calibrate $(BUILD)/fidelity $(FUZZ_BIN) fmt-check
	@tests/run-tests.sh $(BUILD)

test-unit: $(UNIT_BIN) $(EMU_UNIT_BIN) $(SANDBOX_JOB) $(EMU_LIB) $(REMOTE_LIB)
	@tests/run-tests.sh $(BUILD) unit
test-asan: $(UNIT_ASAN) $(EMU_UNIT_ASAN) $(SANDBOX_JOB) $(EMU_LIB) $(REMOTE_LIB)
	@tests/run-tests.sh $(BUILD) asan
test-web:
	@tests/run-tests.sh $(BUILD) web
test-python:
	@tests/run-tests.sh $(BUILD) python
test-integration: $(BUILD)/kgrade $(RUN_TARGETS) $(PY_TARGETS) $(BUILD)/tests/gpu/test_vector_add_drv $(BUILD)/fidelity
	@tests/run-tests.sh $(BUILD) integration
# The gradings at full size (100M elements): minutes, so not in `make test`.
test-full: $(BUILD)/kgrade $(RUN_TARGETS)
	@tests/run-tests.sh $(BUILD) full
# The course's notebooks (tests/notebooks/) through the kgrade Jupyter kernel (part of test-full).
test-notebooks: $(BUILD)/kgrade $(RUN_TARGETS)
	@tests/run-tests.sh $(BUILD) notebooks
# Every exercise's reference and known-good solutions at full size (part of test-full).
test-references: $(BUILD)/kgrade $(NUMBA_FRONT_END) $(EMU_LIB)
	@tests/run-tests.sh $(BUILD) references
test-gpu: $(EMU_LIB) $(GPU_BIN)
	@tests/run-tests.sh $(BUILD) gpu
test-browser: $(BUILD)/kgrade $(NUMBA_FRONT_END) $(WEB_BUNDLE)
	@tests/run-tests.sh $(BUILD) browser
test-fuzz: $(FUZZ_BIN)
	@tests/run-tests.sh $(BUILD) fuzz

# The main job: the grading service on http://127.0.0.1:8080/ with its
# database in var/ and the bundled exercises; a new database prints the
# admin's temporary password.
run: deps $(BUILD)/kgrade $(RUN_TARGETS) $(WEB_TARGETS) $(PY_TARGETS)
	$(BUILD)/kgrade serve --port 8080 --data var

# The timing model against three published tables (tests/calibrate/): minutes on 2 cores.
calibrate: $(BUILD)/calibrate $(EMU_LIB)
	@LD_LIBRARY_PATH=$(BUILD)/emulator $(BUILD)/calibrate

# The timing model against the times measured on a real GPU (FIDELITY_DATASET): minutes on 2 cores.
# FIDELITY_OPTIONS: tests/device/fidelity.sh's (--check fails past the dataset's bars;
# --record makes today's figures its bars, after a change of the model that is meant).
fidelity: $(BUILD)/fidelity $(BUILD)/kgrade $(RUN_TARGETS) $(EMU_LIB)
	@tests/device/fidelity.sh $(BUILD) $(FIDELITY_DATASET) $(FIDELITY_OPTIONS)

# The README's "Running a course" screenshots (docs/course/), taken again
# by acting the walkthrough out in Chromium against a fresh service.
screenshots: $(BUILD)/kgrade $(NUMBA_FRONT_END) $(EMU_LIB) $(WEB_BUNDLE)
	node docs/course/walkthrough.mjs $(BUILD)

bench: $(BENCH_BIN) $(EMU_LIB)
	@for b in $(BENCH_BIN); do echo "== $$b"; LD_LIBRARY_PATH=$(BUILD)/emulator $$b || exit 1; done

C_FILES = $(shell find grader server emulator sandbox db tests -name '*.[ch]' 2>/dev/null)

fmt:
	clang-format -i $(C_FILES)

fmt-check:
	@clang-format --dry-run --Werror $(C_FILES) || \
	    { echo "make fmt-check: run 'make fmt' to format the files above" >&2; exit 1; }

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# Keep intermediate objects (test objects would otherwise be deleted and rebuilt).
.SECONDARY:
