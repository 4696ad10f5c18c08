# fsbench — see README.md. `make` builds ./fsbench; `make run` runs the default
# suite in a scratch dir under .; `make test` runs every test.
VERSION   := 0.1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
PKGS      := mount blkid json-c inih
CFLAGS    ?= -O2 -g
CFLAGS    += -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Isrc \
             -DFSB_VERSION=\"$(VERSION)\" $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS    += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm

LIB_SRC   := $(sort $(wildcard src/*/*.c))
LIB_OBJ   := $(LIB_SRC:%.c=build/%.o)
UNIT_SRC  := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN  := $(UNIT_SRC:tests/unit/%.c=build/tests/%)

# Sanitized build for the test suite (separate objects, same sources).
SAN       := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_OBJ   := $(LIB_SRC:%.c=build/san/%.o)

.PHONY: all run test unit-test cli-test deps install clean bench

all: fsbench

deps:
	@./scripts/deps.sh build

build/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

build/san/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -MMD -MP -c -o $@ $<

build/libfsbench.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

build/san/libfsbench.a: $(SAN_OBJ)
	$(AR) rcs $@ $^

fsbench: build/src/main.o build/libfsbench.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)

build/san/fsbench: build/san/src/main.o build/san/libfsbench.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

build/tests/%: tests/unit/%.c build/san/libfsbench.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(SAN) -Itests/unit -o $@ $< build/san/libfsbench.a $(LDLIBS) -lcmocka

run: deps fsbench
	./fsbench run .

unit-test: $(UNIT_BIN)
	@./tests/run-unit.sh $(UNIT_BIN)

cli-test: fsbench build/san/fsbench
	@./tests/run-cli.sh

# Every test: cmocka unit tests and end-to-end tests, both on the
# sanitized build; ends with "N passed, N failed".
test:
	@./scripts/deps.sh test
	@$(MAKE) --no-print-directory $(UNIT_BIN) fsbench build/san/fsbench
	@./tests/run-all.sh $(UNIT_BIN)

bench: fsbench
	./bench/vs-peers.sh

install: fsbench
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 fsbench $(DESTDIR)$(PREFIX)/bin/fsbench
	install -m 644 man/fsbench.1 $(DESTDIR)$(PREFIX)/share/man/man1/fsbench.1

clean:
	rm -rf build fsbench

-include $(LIB_OBJ:.o=.d) $(SAN_OBJ:.o=.d) build/src/main.d build/san/src/main.d
