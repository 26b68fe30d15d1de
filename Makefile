# Makefile: builds the tuner (build/tuner), the kernel library (build/libtunekit.a, and .so for
# `make install PREFIX=...`), the tests, and runs them. `make run` tunes on this machine's GPU (or
# explains and replays without one); `make test` is what CI runs. STATIC=1 links SQLite, libyaml,
# GSL and liblzma statically so build/tuner runs on a GPU machine that has none of their packages.
# DEPS=DIR takes those four from a folder instead of the system (scripts/deps_kit.sh).
# SANITIZE=1 builds the driver and the CPU tests with AddressSanitizer and UBSan into build-san/,
# FUZZ=1 the libFuzzer targets of tests/fuzz/ with clang into build-fuzz/ (docs/robustness.md);
# `make test-sanitize` and `make fuzz FUZZ_SECONDS=N` run them.

# Parallel by default: one job per core unless the command line gives -j.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 2)
endif

CUDA_HOME ?= $(or $(patsubst %/bin/nvcc,%,$(shell command -v nvcc 2>/dev/null)),/usr/local/cuda)
NVCC      ?= $(CUDA_HOME)/bin/nvcc
CC        ?= gcc
PREFIX    ?= /usr/local
B         := build
# The CUDA objects (kernels/*.cu, tuner/*/*.cu) are compiled by nvcc as usual, into build/ in every
# mode: the sanitizer and fuzz builds link the same objects rather than compiling them again.
KB        := build
CLANG     ?= $(or $(shell command -v clang-14 2>/dev/null),$(shell command -v clang 2>/dev/null),clang)
FUZZ_SECONDS ?= 60

CFLAGS   ?= -O2 -g
# -Wno-format-truncation: snprintf into fixed error buffers truncates on purpose.
CFLAGS   += -std=c17 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -I$(CUDA_HOME)/include -I$(B)/gen -Ituner -Ikernels -MMD -MP
NVFLAGS  ?= -O3 -lineinfo
# --threads 0: nvcc compiles a file's architectures side by side (one thread per -gencode target
# up to the cores), which shortens the build's longest step, relu_mask.cu, on any machine.
NVFLAGS  += -std=c++17 --threads 0 -Xcompiler -Wall,-Wextra,-Werror -MMD -MP \
            -gencode arch=compute_80,code=sm_80 \
            -gencode arch=compute_90,code=sm_90 \
            -gencode arch=compute_90,code=compute_90

# Sanitized driver and tests: every C file of tuner/, kernels/ and tests/unit/ with ASan + UBSan
# (UB aborts, no recovery), linked with the sanitizers' runtimes, in build-san/.
ifeq ($(SANITIZE),1)
B        := build-san
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS   += $(SANFLAGS)
LDSAN    := $(SANFLAGS)
endif
# libFuzzer targets: the same C files compiled by clang with coverage for libFuzzer, ASan and UBSan,
# in build-fuzz/ (clang warns where gcc does not: warnings stay warnings there).
ifeq ($(FUZZ),1)
B        := build-fuzz
CC       := $(CLANG)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
CFLAGS   := $(filter-out -Werror,$(CFLAGS)) -Wno-unknown-warning-option -fsanitize=fuzzer-no-link $(SANFLAGS)
LDSAN    := -fsanitize=fuzzer $(SANFLAGS)
endif

# DEPS=DIR: SQLite, libyaml, GSL and liblzma from DIR/include and DIR/lib (static libraries, as
# scripts/deps_kit.sh packs them from a machine that has the -dev packages) rather than from the
# system: how a machine without those packages, such as a GPU machine, builds (with STATIC=1).
ifneq ($(DEPS),)
CFLAGS   += -I$(DEPS)/include
DEPLIBDIR := -L$(DEPS)/lib
endif

# The fuzz binaries always link SQLite, libyaml, GSL and liblzma statically (libFuzzer and the
# sanitizer runtimes are static with clang anyway): scripts/fuzz_campaign.sh runs them on a machine
# that has none of those packages.
ifneq ($(filter 1,$(STATIC) $(FUZZ)),)
DEPLIBS := -Wl,-Bstatic -lsqlite3 -lyaml -lgsl -lgslcblas -llzma -Wl,-Bdynamic
else
DEPLIBS := -lsqlite3 -lyaml -lgsl -lgslcblas -llzma
endif
LDLIBS := -L$(CUDA_HOME)/lib64 $(DEPLIBDIR) $(B)/libtunekit.a -lcudart_static $(DEPLIBS) -lstdc++ -lm -ldl -lpthread -lrt

TUNER_SRC   := $(sort $(wildcard tuner/*/*.c))
TUNER_CU    := $(sort $(wildcard tuner/*/*.cu))
TUNER_OBJ   := $(patsubst %.c,$(B)/obj/%.o,$(TUNER_SRC)) $(patsubst %.cu,$(KB)/obj/%.o,$(TUNER_CU))
# the command line (tuner/cli: main.c and the commands) is the program's, not the library's
CLI_OBJ     := $(filter $(B)/obj/tuner/cli/%.o,$(TUNER_OBJ))
# What libtunekit's run-time API (kernels/runtime.c) shares with the tuner, compiled once,
# position-independent, into the library, where the tuner takes it from too: one expression
# evaluator, one compile cache (keys, entries), one rule for a config's options and kernel names,
# NVRTC behind the compiler interface, the device description.
RUNTIME_SHARED := tuner/expr/expr_parse.c tuner/expr/expr_bind.c tuner/expr/expr_eval.c \
                  tuner/core/value.c tuner/core/sha256.c tuner/core/module_meta.c tuner/core/files.c \
                  tuner/core/problem.c \
                  tuner/core/device.c tuner/build/nvrtc_load.c tuner/build/compiler_nvrtc.c \
                  tuner/build/nvrtc_headers.c tuner/build/nvrtc_headers_cxx.c \
                  tuner/build/nvrtc_options.c tuner/build/ptx.c tuner/build/cc_output.c \
                  tuner/build/cache.c tuner/build/compile_form.c tuner/build/source_hint.c \
                  tuner/core/cuda_device.c \
                  tuner/core/cuda_launch.c
RUNTIME_OBJ := $(patsubst %.c,$(B)/obj/pic/%.o,$(RUNTIME_SHARED))
TUNER_LIB_OBJ := $(filter-out $(CLI_OBJ) $(patsubst %.c,$(B)/obj/%.o,$(RUNTIME_SHARED)),$(TUNER_OBJ))
# largest (slowest to compile) first, so that a build with fewer jobs than files starts them first
KERNEL_CU   := $(shell ls -S kernels/*.cu)
KERNEL_C    := $(sort $(wildcard kernels/*.c))
KERNEL_OBJ  := $(patsubst %.cu,$(KB)/obj/%.o,$(KERNEL_CU)) $(patsubst %.c,$(B)/obj/%.o,$(KERNEL_C)) \
               $(RUNTIME_OBJ)
UNIT_SRC    := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN    := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRC))
GPU_SRC     := $(sort $(wildcard tests/gpu/*.cu))
GPU_BIN     := $(patsubst tests/gpu/%.cu,$(B)/tests/gpu/%,$(GPU_SRC))
GEN         := $(B)/gen/schema_sql.h $(B)/gen/family_hashes.h
FUZZ_SRC    := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN    := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(FUZZ_SRC))

.PHONY: all deps run test unit gpu-test install clean header-check test-sanitize fuzz fuzz-bins \
        fuzz-smoke-bins fuzz-pack
all: $(B)/libtunekit.a $(B)/tuner

# ---- dependencies: install the -dev packages when missing (as root), else say how ----
$(B)/.deps-ok:
	@DEPS="$(DEPS)" sh scripts/deps.sh
	@mkdir -p $(B) && touch $@
deps: $(B)/.deps-ok

# ---- generated sources ----
$(B)/gen/schema_sql.h: db/schema.sql | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@{ echo '/* generated from db/schema.sql by make; do not edit */'; \
	   echo 'static const char schema_sql[] ='; \
	   sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/    "/' -e 's/$$/\\n"/' db/schema.sql; \
	   echo '    ;'; } > $@
# One hash per family .cu over its source, its public header (kernels/tunekit_<family>.h), its
# own headers (kernels/<family>_*.h, such as elementwise_gelu16.h) and the shared device headers:
# resume skips measurements only when the kernel source they were taken with is unchanged.
KERNEL_SHARED := $(sort $(wildcard kernels/*.cuh)) kernels/tunekit.h
KERNEL_FAMILY_H := $(sort $(wildcard kernels/tunekit_*.h) \
                     $(foreach f,$(KERNEL_CU),$(wildcard $(f:.cu=)_*.h)))
$(B)/gen/family_hashes.h: $(KERNEL_CU) $(KERNEL_SHARED) $(KERNEL_FAMILY_H) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	@{ echo '/* generated by make: sha256 (first 16 hex) of each family source + shared headers */'; \
	   echo 'static const struct { const char *family, *hash; } kernel_hashes[] = {'; \
	   for f in $(sort $(KERNEL_CU)); do n=$$(basename $$f .cu); \
	     h=$$(cat $$f $$(ls kernels/tunekit_$$n.h kernels/$${n}_*.h 2>/dev/null) $(KERNEL_SHARED) | sha256sum | cut -c1-16); \
	     echo "    { \"$$n\", \"$$h\" },"; done; \
	   echo '    { 0, 0 }'; echo '};'; } > $@.tmp && mv $@.tmp $@

# ---- objects ----
$(B)/obj/tuner/%.o: tuner/%.c $(GEN) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@
$(KB)/obj/tuner/%.o: tuner/%.cu $(GEN) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Ituner -Ikernels -c $< -o $@
# Kernel objects are position-independent: the same objects make libtunekit.a and libtunekit.so.
$(KB)/obj/kernels/%.o: kernels/%.cu | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Xcompiler -fPIC -c $< -o $@
$(B)/obj/kernels/%.o: kernels/%.c $(GEN) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@
$(B)/obj/pic/tuner/%.o: tuner/%.c $(GEN) | $(B)/.deps-ok
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

# the tuner that tuning at run time starts (kernels/runtime_tune.c): this build's, else the
# installed one
$(B)/obj/kernels/runtime_tune.o $(B)/obj/pic/kernels/runtime_tune.o: \
    CFLAGS += -DTK_BUILD_TUNER='"$(abspath $(B))/tuner"' -DTK_INSTALL_TUNER='"$(PREFIX)/bin/tuner"'

$(B)/libtunekit.a: $(KERNEL_OBJ)
	@rm -f $@
	ar rcs $@ $^
# The shared library: soname libtunekit.so.<major>, linked against the CUDA runtime's shared
# library (what a program using it links too).
TK_VERSION := 0.1.0
TK_SONAME  := libtunekit.so.$(firstword $(subst ., ,$(TK_VERSION)))
$(B)/libtunekit.so: $(KERNEL_OBJ)
	$(CC) -shared -Wl,-soname,$(TK_SONAME) -Wl,--no-undefined -o $(B)/libtunekit.so.$(TK_VERSION) \
	    $^ -L$(CUDA_HOME)/lib64 -lcudart -lstdc++ -lm -ldl -lpthread
	ln -sf libtunekit.so.$(TK_VERSION) $(B)/$(TK_SONAME)
	ln -sf $(TK_SONAME) $@
$(B)/libtuner.a: $(TUNER_LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^
$(B)/tuner: $(CLI_OBJ) $(B)/libtuner.a $(B)/libtunekit.a
	$(CC) $(LDSAN) -o $@ $(CLI_OBJ) $(B)/libtuner.a $(LDLIBS)

# ---- tests ----
$(B)/tests/%: tests/unit/%.c tests/unit/check.h $(B)/libtuner.a $(B)/libtunekit.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) -Itests/unit -o $@ $< $(B)/libtuner.a $(LDLIBS)
# The GPU tests also link the tuner's GPU set-up (tuner/ops/gpu_fill.cu): the elementwise and
# reduce tests check its generator and references.
$(B)/tests/gpu/%: tests/gpu/%.cu $(B)/libtunekit.a $(KB)/obj/tuner/ops/gpu_fill.o
	@mkdir -p $(dir $@)
	$(NVCC) $(NVFLAGS) -Ikernels -Ituner -o $@ $< $(KB)/obj/tuner/ops/gpu_fill.o $(B)/libtunekit.a

# bench/probe.cu: the performance experiments of the closing notes (not part of the tests)
$(B)/probe: bench/probe.cu $(B)/libtunekit.a
	$(NVCC) $(NVFLAGS) -Ikernels -o $@ $< $(B)/libtunekit.a

# ---- fuzz targets (FUZZ=1: clang, libFuzzer, ASan, UBSan; tests/fuzz/run.sh: what each feeds) ----
$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/fuzz.h $(B)/libtuner.a $(B)/libtunekit.a $(GEN)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDSAN) -Itests/fuzz -o $@ $< $(B)/libtuner.a $(LDLIBS)
fuzz-bins: $(FUZZ_BIN)
# For `make test`: the fuzz binaries when clang has libFuzzer (tests/fuzz/run.sh smoke skips,
# and says so, when it has not). After `all`: the sub-make links the nvcc objects in build/,
# which it must not compile alongside this make.
fuzz-smoke-bins: all
	@if bash tests/fuzz/run.sh have-libfuzzer "$(CLANG)"; then $(MAKE) FUZZ=1 fuzz-bins; fi
# The fuzz binaries in one archive, build-fuzz/fuzz-bins.tar.xz: what a GPU machine's call carries
# for scripts/fuzz_campaign.sh (which unpacks it), under the 64 MiB a call may carry.
fuzz-pack:
	@$(MAKE) FUZZ=1 fuzz-bins
	tar -C build-fuzz -cJf build-fuzz/fuzz-bins.tar.xz $(patsubst tests/fuzz/%.c,fuzz/%,$(FUZZ_SRC))
# make fuzz FUZZ_SECONDS=N: every target for N seconds on one core, over its corpus.
fuzz:
	@$(MAKE) FUZZ=1 fuzz-bins
	@bash tests/fuzz/run.sh run $(FUZZ_SECONDS)

# The fake NVML the device-settings tests load (TUNEKIT_NVML_LIB; tests/fixtures/fake_nvml.c).
FAKE_NVML   := $(B)/tests/libfake_nvml.so
$(FAKE_NVML): tests/fixtures/fake_nvml.c
	@mkdir -p $(dir $@)
	$(CC) -O2 -std=c17 -Wall -Wextra -Werror -fPIC -shared -o $@ $<

unit: $(UNIT_BIN) $(FAKE_NVML)
test: all $(UNIT_BIN) $(FAKE_NVML) $(GPU_BIN) fuzz-smoke-bins
	@bash tests/run.sh

# The CPU test suite against the sanitized build (tests/sanitize.sh: sanitizer options, reports
# collected from every process, the parts left out and why). The CUDA objects are not
# instrumented (nvcc), and no GPU test runs here.
ifeq ($(SANITIZE),1)
test-sanitize: all $(UNIT_BIN) $(FAKE_NVML)
	@bash tests/sanitize.sh $(B)
else
test-sanitize:
	@$(MAKE) SANITIZE=1 test-sanitize
endif
gpu-test: all $(GPU_BIN)
	@bash tests/gpu/run.sh

header-check: $(B)/tuner
	$(B)/tuner header --check

run: all
	@bash scripts/make-run.sh

# tuner, libtunekit.a and .so, the public headers, pkg-config and CMake package files under
# $(DESTDIR)$(PREFIX) (scripts/install.sh says what goes where).
install: all $(B)/libtunekit.so
	@sh scripts/install.sh "$(DESTDIR)" "$(PREFIX)" "$(B)" "$(TK_VERSION)" "$(CUDA_HOME)" \
	    kernels/tunekit.h kernels/tuned_lookup.h $(KERNEL_FAMILY_H)

clean:
	rm -rf $(B) build-san build-fuzz

-include $(shell find $(sort $(B) $(KB)) -name '*.d' 2>/dev/null)
