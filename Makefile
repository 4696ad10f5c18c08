# fsbench — see README.md. `make` builds ./fsbench; `make run` runs the default
# suite in a scratch dir under .; `make test` runs every test.
#
# Every target works on a fresh Debian 12 machine with gcc, make and git:
# the ones that need packages first install those missing through
# scripts/deps.sh (as root, or via sudo; otherwise it names them), then
# build in a sub-make, since the pkg-config flags above are only right
# once the -dev packages are there.
VERSION   := 0.2.0
PREFIX    ?= /usr/local
DESTDIR   ?=
# Where `make install` puts the docs and the bash completion (a package
# may move them; the completion directory is bash-completion's own).
DOCDIR    ?= $(PREFIX)/share/doc/fsbench
BASH_COMPLETION_DIR ?= $(PREFIX)/share/bash-completion/completions
CC        ?= cc
PKGS      := mount blkid json-c inih liburing
# CPPFLAGS and LDFLAGS from the environment are used as given (a Debian
# build passes its hardening flags through them).
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc -Ibuild/gen \
             -DFSB_VERSION=\"$(VERSION)\" $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

# The commit built, for `fsbench --version`: `git describe` in a checkout
# (".git" here: an enclosing repository's commit is not ours), the second
# line of the VERSION file `make dist` puts in a release tarball, else
# none. Only characters a commit name has are kept.
COMMIT    := $(shell { if [ -e .git ]; then git describe --always --dirty --abbrev=8 2>/dev/null; \
		elif [ -f VERSION ]; then sed -n 2p VERSION; fi; } | head -n1 | tr -cd 'A-Za-z0-9._+-')

# update-file FILE,TEXT: write TEXT to FILE when it differs, so that what
# depends on FILE is rebuilt exactly when TEXT changes. Run as the Makefile
# is read, before any rule.
update-file = $(shell mkdir -p $(dir $(1)) && printf '%s\n' '$(subst ','\'',$(2))' >$(1).$$$$ && \
	{ cmp -s $(1).$$$$ $(1) && rm -f $(1).$$$$ || mv -f $(1).$$$$ $(1); })
# build/gen/commit.h: only src/util/version.c includes it, so a new commit
# rebuilds one file. build/gen/flags: every object depends on it, so new
# flags (a new VERSION among them) rebuild them all. The flags are sorted
# and each kept once: a CFLAGS from the environment reaches a sub-make
# with the additions above made twice, which is the same build.
$(call update-file,build/gen/commit.h,#define FSB_COMMIT "$(COMMIT)")
$(call update-file,build/gen/flags,$(sort $(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) $(LDLIBS)))

# src/core/group_mpi.c includes mpi.h: only fsbench-mpi has it (below).
MPI_SRC   := src/core/group_mpi.c
LIB_SRC   := $(filter-out $(MPI_SRC),$(sort $(wildcard src/*/*.c)))
LIB_OBJ   := $(LIB_SRC:%.c=build/%.o)
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=build/tests/%)

# Sanitized build for the test suite (separate objects, same sources).
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_OBJ   := $(LIB_SRC:%.c=build/san/%.o)

# libFuzzer harnesses (tests/fuzz/fuzz_*.c), built with clang: the library
# again with coverage (fuzzer-no-link) and the sanitizers, into build/fuzz/.
FUZZ_CC      ?= clang
FUZZ_SECONDS ?= 120
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_OBJ     := $(LIB_SRC:%.c=build/fuzz/%.o)
FUZZ_SRC     := $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN     := $(FUZZ_SRC:tests/fuzz/%.c=build/fuzz/%)

# The fault-injection build (libfiu, tests/cli/t9100-faults.sh): no
# sanitizers (ASan and libfiu's LD_PRELOAD do not mix), -DFSB_FIU turns on
# the points of src/util/fault.h. FIU_RUNS randomized runs at least,
# within FIU_SECONDS, in `make test`; `make fuzz` sweeps longer.
FIU_OBJ      := $(LIB_SRC:%.c=build/fiu/%.o)
FIU_RUNS     ?= 2000
FIU_SECONDS  ?= 900

.PHONY: all run test check-layers unit-test cli-test deps install clean bench guest-kernel fuzz fuzz-build \
	check-commits \
	fiu-build completion dist mpi

all:
	@./scripts/deps.sh build
	@$(MAKE) --no-print-directory fsbench completion

deps:
	@./scripts/deps.sh build

build/%.o: %.c build/gen/flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

build/san/%.o: %.c build/gen/flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

build/libfsbench.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

build/san/libfsbench.a: $(SAN_OBJ)
	$(AR) rcs $@ $^

fsbench: build/src/main.o build/libfsbench.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

build/san/fsbench: build/san/src/main.o build/san/libfsbench.a
	$(CC) $(CFLAGS) $(SAN) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# fsbench-mpi (`make mpi`): the same library with the MPI group
# (src/core/group_mpi.c) and its own main (src/main_mpi.c), compiled and
# linked by mpicc (Open MPI: libopenmpi-dev, openmpi-bin). ./fsbench never
# links MPI.
MPICC     ?= mpicc
MPI_OBJ   := build/mpi/src/main_mpi.o $(MPI_SRC:%.c=build/mpi/%.o)

build/mpi/%.o: %.c build/gen/flags
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c -o $@ $<

fsbench-mpi: $(MPI_OBJ) build/libfsbench.a
	$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lpthread

# bench/mpi-barrier.c: the cost of fsbench-mpi's fences (bench/mpi.sh).
build/bench/mpi-barrier: bench/mpi-barrier.c $(MPI_SRC:%.c=build/mpi/%.o) build/libfsbench.a
	@mkdir -p $(dir $@)
	$(MPICC) $(CFLAGS) -o $@ $^ $(LDLIBS) -lpthread

mpi:
	@./scripts/deps.sh mpi
	@$(MAKE) --no-print-directory fsbench-mpi

# The bash completion, printed by the binary from its own option tables
# (src/cli/completion.c), so it always matches what the binary parses.
completion: build/completion/fsbench

build/completion/fsbench: fsbench
	@mkdir -p $(dir $@)
	./fsbench completion bash >$@.tmp && mv -f $@.tmp $@

build/fuzz/%.o: %.c build/gen/flags
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(CFLAGS) -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP -c -o $@ $<

build/fuzz/libfsbench.a: $(FUZZ_OBJ)
	$(AR) rcs $@ $^

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h build/fuzz/libfsbench.a
	$(FUZZ_CC) $(CFLAGS) -fsanitize=fuzzer $(FUZZ_SAN) -Itests/fuzz -o $@ $< \
		build/fuzz/libfsbench.a $(LDLIBS)

build/fiu/%.o: %.c build/gen/flags
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFSB_FIU -MMD -MP -c -o $@ $<

build/fiu/libfsbench.a: $(FIU_OBJ)
	$(AR) rcs $@ $^

build/fiu/fsbench: build/fiu/src/main.o build/fiu/libfsbench.a
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lfiu

fiu-build: build/fiu/fsbench

# The pattern test measures the data with real compressors; fsbench itself
# links neither library.
build/tests/test_pattern: TEST_LIBS = -lzstd -lz

build/tests/%: tests/unit/%.c build/san/libfsbench.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Itests/unit -o $@ $< build/san/libfsbench.a $(LDLIBS) -lcmocka $(TEST_LIBS)

# Dependencies first, then the build (pkg-config flags are expanded only
# when a recipe runs, so a fresh machine gets them after the install).
run:
	@./scripts/deps.sh build
	@$(MAKE) --no-print-directory fsbench
	./fsbench run .

# The cmocka unit tests alone (sanitized build); ends with "N passed, N failed".
unit-test:
	@./scripts/deps.sh unit
	@$(MAKE) --no-print-directory $(UNIT_BIN)
	@./tests/run-all.sh --unit $(UNIT_BIN)

# The end-to-end tests alone (tests/cli/t*.sh on the sanitized binary),
# with what they need, as `make test` runs them.
cli-test:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory guest-kernel || echo "fsbench: no guest kernel: the guest tests will be skipped" >&2
	@$(MAKE) --no-print-directory fsbench build/san/fsbench
	@if command -v $(MPICC) >/dev/null; then $(MAKE) --no-print-directory fsbench-mpi; \
		else echo "fsbench: no $(MPICC) (Open MPI): the MPI tests will be skipped" >&2; fi
	@./tests/run-all.sh --cli

# The layer rule of docs/DESIGN.md and no include cycle in src/report,
# from the #include lines alone (scripts/check-layers.sh says how).
check-layers:
	@./scripts/check-layers.sh src

# Every test: cmocka unit tests and end-to-end tests, both on the
# sanitized build; ends with "N passed, N failed". As root the end-to-end
# tests also make filesystems on loop devices (and boot a QEMU guest).
test: check-layers
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory guest-kernel || echo "fsbench: no guest kernel: the guest tests will be skipped" >&2
	@$(MAKE) --no-print-directory $(UNIT_BIN) fsbench build/san/fsbench
	@$(MAKE) --no-print-directory build/fiu/fsbench || echo "fsbench: no fault-injection build: t9100 will be skipped" >&2
	@if command -v $(MPICC) >/dev/null; then $(MAKE) --no-print-directory fsbench-mpi; \
		else echo "fsbench: no $(MPICC) (Open MPI): the MPI tests will be skipped" >&2; fi
	@./tests/run-all.sh $(UNIT_BIN)

# The commit messages since scripts/check-commits.sh was added (subject
# <= 72 characters, no final period, a blank line, a body); `make test`
# runs it as tests/cli/t0060-commits.sh, skipped where there is no .git
# (a release tarball).
check-commits:
	@./scripts/check-commits.sh

bench:
	@./scripts/deps.sh bench
	@$(MAKE) --no-print-directory fsbench
	./bench/vs-peers.sh

# Each harness over its corpus, then fuzzed for FUZZ_SECONDS (default 120)
# each; a crash input is kept in tests/fuzz/corpus/HARNESS/ (commit it).
# Then the fault-injection sweep: FIU_RUNS runs within FIU_SECONDS.
fuzz-build:
	@./scripts/deps.sh fuzz
	@$(MAKE) --no-print-directory $(FUZZ_BIN)

fuzz: fuzz-build fiu-build
	@./tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZ_BIN)
	@FIU_RUNS=$(FIU_RUNS) FIU_SECONDS=$(FIU_SECONDS) bash tests/cli/t9100-faults.sh

# The distribution kernel `fsbench guest` boots when the running kernel's own
# /boot/vmlinuz and /lib/modules are absent: the package linux-image-amd64
# depends on, unpacked into the cache fsbench looks in, with the modules.dep
# the .deb does not ship. Idempotent; nothing here is committed. depmod
# (package kmod) and apt's lists come through scripts/deps.sh guest; depmod
# lives in /usr/sbin, outside a normal user's PATH.
GUEST_KERNEL_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/fsbench/kernel
guest-kernel:
	@./scripts/deps.sh guest
	@set -e; PATH="$$PATH:/usr/sbin:/sbin"; pkg=$$(apt-cache depends linux-image-amd64 | \
		sed -n 's/^  Depends: \(linux-image-[0-9].*\)$$/\1/p' | head -n1); \
	test -n "$$pkg" || { echo "guest-kernel: no linux-image-amd64 in apt's lists (apt-get update?)" >&2; exit 1; }; \
	ver=$${pkg#linux-image-}; \
	if [ -f "$(GUEST_KERNEL_DIR)/lib/modules/$$ver/modules.dep" ]; then \
		echo "guest-kernel: $$ver already in $(GUEST_KERNEL_DIR)"; exit 0; fi; \
	mkdir -p "$(GUEST_KERNEL_DIR)/deb"; \
	cd "$(GUEST_KERNEL_DIR)/deb" && apt-get download "$$pkg" && cd - >/dev/null; \
	dpkg -x "$(GUEST_KERNEL_DIR)"/deb/$${pkg}_*.deb "$(GUEST_KERNEL_DIR)"; \
	depmod -b "$(GUEST_KERNEL_DIR)" "$$ver"; \
	rm -rf "$(GUEST_KERNEL_DIR)/deb"; \
	echo "guest-kernel: $$ver in $(GUEST_KERNEL_DIR)"

# The binary, the man page, the bash completion, the docs and the example
# matrix files. A Debian build runs this (debian/rules) with PREFIX=/usr.
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(BASH_COMPLETION_DIR) $(DESTDIR)$(DOCDIR)/examples
	install -m 755 fsbench $(DESTDIR)$(PREFIX)/bin/fsbench
	install -m 644 man/fsbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1
	install -m 644 build/completion/fsbench $(DESTDIR)$(BASH_COMPLETION_DIR)/fsbench
	install -m 644 README.md docs/*.md $(DESTDIR)$(DOCDIR)/
	install -m 644 examples/*.ini $(DESTDIR)$(DOCDIR)/examples/

# The release tarball fsbench-VERSION.tar.gz, in DIST_DIR (default .): in
# a checkout, `git archive` of DIST_REV (default HEAD: what is committed,
# not what is only in the working tree), plus a VERSION file (the version,
# then the commit) so that a build from the tarball knows both. In an
# unpacked release (VERSION, no .git) the tree itself, build output left
# out. The tarball's own build passes `make test`.
DIST_DIR ?= .
DIST_REV ?= HEAD
DIST     := fsbench-$(VERSION)
dist:
	@set -e; out="$(DIST_DIR)/$(DIST).tar.gz"; stage=build/dist/$(DIST); \
	rm -rf build/dist; mkdir -p $$stage; \
	if [ -e .git ]; then \
		commit=$$(git describe --always --abbrev=8 $(DIST_REV)); \
		git diff --quiet $(DIST_REV) -- 2>/dev/null || \
			echo "make dist: uncommitted changes are not in the tarball ($(DIST_REV) is $$commit)" >&2; \
		printf '%s\n%s\n' $(VERSION) "$$commit" >$$stage/VERSION; \
		git archive --format=tar.gz --prefix=$(DIST)/ --add-file=$$stage/VERSION \
			-o "$$out" $(DIST_REV); \
	elif [ -f VERSION ]; then \
		tar -cf - --exclude=./build --exclude=./fsbench --exclude='./fsbench-*.tar.gz' \
			--exclude=./debian/fsbench --exclude=./debian/.debhelper \
			--exclude=./debian/files --exclude='./debian/*.substvars' \
			--exclude='./debian/*debhelper*' --exclude=./debian/tmp . | tar -xf - -C $$stage; \
		tar -C build/dist --owner=0 --group=0 --numeric-owner --sort=name \
			-czf "$$out" $(DIST); \
	else \
		echo "make dist: neither a git checkout nor a release tree (no VERSION file)" >&2; \
		exit 1; \
	fi; \
	rm -rf build/dist; echo "$$out"

clean:
	rm -rf build fsbench fsbench-mpi

-include $(LIB_OBJ:.o=.d) $(SAN_OBJ:.o=.d) $(FUZZ_OBJ:.o=.d) $(FIU_OBJ:.o=.d) build/src/main.d \
	build/san/src/main.d build/fiu/src/main.d $(MPI_OBJ:.o=.d)
