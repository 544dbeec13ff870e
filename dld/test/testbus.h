/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* A private connection for dld's host tests, over a socket pair: dld's
 * end (the server) and a caller's, and the loop that runs both until an
 * awaited message is in. */

#include <errno.h>
#include <stdio.h>
#include <sys/socket.h>
#include <systemd/sd-bus.h>
#include <systemd/sd-id128.h>

/* dld's end (server) and a caller's of one private connection. */
static inline int testbus_connect(sd_bus **ret_server, sd_bus **ret_client) {
        sd_bus *server = NULL, *client = NULL;
        sd_id128_t id;
        int fds[2], r;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, fds) < 0)
                return -errno;
        if ((r = sd_id128_randomize(&id)) < 0 ||
            (r = sd_bus_new(&server)) < 0 || (r = sd_bus_set_fd(server, fds[0], fds[0])) < 0 ||
            (r = sd_bus_set_server(server, 1, id)) < 0 || (r = sd_bus_set_anonymous(server, 1)) < 0 ||
            (r = sd_bus_start(server)) < 0 ||
            (r = sd_bus_new(&client)) < 0 || (r = sd_bus_set_fd(client, fds[1], fds[1])) < 0 ||
            (r = sd_bus_set_anonymous(client, 1)) < 0 || (r = sd_bus_start(client)) < 0) {
                sd_bus_close_unref(server);
                sd_bus_close_unref(client);
                return r;
        }
        *ret_server = server;
        *ret_client = client;
        return 0;
}

/* Runs both ends until *until is set (by a callback of either): 0, or a
 * negative errno (-ETIMEDOUT: not after 10000 rounds). */
static inline int testbus_run(sd_bus *server, sd_bus *client, sd_bus_message **until) {
        int r = 0;

        for (unsigned i = 0; r >= 0 && !*until && i < 10000; i++) {
                int a = sd_bus_process(server, NULL), b = sd_bus_process(client, NULL);

                r = a < 0 ? a : b < 0 ? b : 0;
                if (r == 0 && a == 0 && b == 0)
                        r = sd_bus_wait(client, 1000);
        }
        if (r < 0)
                return r;
        return *until ? 0 : -ETIMEDOUT;
}

/* A callback that keeps the message it is given in *userdata. */
static inline int testbus_keep(sd_bus_message *m, void *userdata, sd_bus_error *error) {
        (void) error;
        *(sd_bus_message **) userdata = sd_bus_message_ref(m);
        return 1;
}
