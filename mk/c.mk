# Shared by dld/Makefile and dlconf/Makefile: compiler flags and the object
# rules. Set O, HEADERS, HDRS (what every object depends on) and, if needed,
# EXTRA_INCLUDES before including it.

CC ?= gcc
CFLAGS ?= -O2 -g
PKGS := json-c libsystemd
# include/ holds the project's own headers (dlsched/syscalls.h: the
# series' system call numbers, checked against the patched uapi when
# HEADERS has it).
PATCHED_UAPI := $(if $(wildcard $(HEADERS)/linux/sched.h),-isystem $(HEADERS))
BASE_CFLAGS := -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -I$(CURDIR) $(EXTRA_INCLUDES) \
	-I$(TOP)/include $(PATCHED_UAPI) \
	$(shell pkg-config --cflags $(PKGS))
LIBS := $(shell pkg-config --libs $(PKGS)) -lm
# Host tests run under these; the first error stops the test.
SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

$(O)/obj/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) $(CFLAGS) -c -o $@ $<

$(O)/san/%.o: %.c $(HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(BASE_CFLAGS) -O1 -g $(SAN) -c -o $@ $<
