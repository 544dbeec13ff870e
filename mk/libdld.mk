# Linking libdld (../libdld): its headers on the include path, and rules
.DEFAULT_GOAL := all
# that always ask libdld's own Makefile, which knows when the library is out
# of date. Set O (and LIBDLD_O, to keep a private copy) before including.

LIBDLD_DIR := $(TOP)/libdld
LIBDLD_O ?= $(abspath $(O)/../libdld)
LIBDLD := $(LIBDLD_O)/libdld.a
SAN_LIBDLD := $(LIBDLD_O)/san/libdld.a
LIBDLD_HDRS := $(wildcard $(LIBDLD_DIR)/*.h) $(wildcard $(TOP)/include/dlsched/*.h)

.PHONY: FORCE
$(LIBDLD) $(SAN_LIBDLD): FORCE
	@$(MAKE) -s -C $(LIBDLD_DIR) O=$(LIBDLD_O) HEADERS=$(HEADERS) $@
