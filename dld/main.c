/* SPDX-License-Identifier: GPL-2.0-or-later */
/* dld: the deadline bandwidth daemon. See dld(8). */
#include <getopt.h>

#include "bus.h"
#include "log.h"
#include "manager.h"

static void help(void) {
        printf("Usage: dld [OPTIONS]\n\n"
               "Deadline bandwidth daemon: applies the policies in the policy directory and\n"
               "admits services that request SCHED_DEADLINE in their unit drop-ins.\n\n"
               "  -p, --policy-dir=DIR   policy directory (default %s)\n"
               "      --run-dir=DIR      state directory (default %s)\n"
               "  -h, --help             this text\n"
               "      --version          version\n",
               DLD_DEFAULT_POLICY_DIR, DLD_DEFAULT_RUN_DIR);
}

int main(int argc, char *argv[]) {
        enum { ARG_RUN_DIR = 0x100, ARG_VERSION };
        static const struct option options[] = {
                { "policy-dir", required_argument, NULL, 'p' },
                { "run-dir", required_argument, NULL, ARG_RUN_DIR },
                { "help", no_argument, NULL, 'h' },
                { "version", no_argument, NULL, ARG_VERSION },
                {}
        };
        _cleanup_(manager_freep) Manager *m = NULL;
        ManagerOptions o = { .root = "" };
        int c, r;

        while ((c = getopt_long(argc, argv, "p:h", options, NULL)) >= 0)
                switch (c) {
                case 'p':
                        o.policy_dir = optarg;
                        break;
                case ARG_RUN_DIR:
                        o.run_dir = optarg;
                        break;
                case 'h':
                        help();
                        return 0;
                case ARG_VERSION:
                        printf("dld %s\n", DLD_VERSION);
                        return 0;
                default:
                        return 2;
                }
        if (optind < argc) {
                fprintf(stderr, "dld: unexpected argument %s\n", argv[optind]);
                return 2;
        }

        r = manager_new(&o, &m);
        if (r < 0) {
                log_error("cannot start: %s", strerror(-r));
                return 1;
        }
        r = manager_start(m);
        if (r >= 0)
                r = bus_register(m);
        if (r >= 0)
                r = manager_publish(m);
        if (r < 0)
                return r == -EOPNOTSUPP ? 3 : m->privileges_missing ? 4 : 1;
        r = manager_run(m);
        if (r < 0) {
                log_error("event loop failed: %s", strerror(-r));
                return 1;
        }
        return 0;
}
