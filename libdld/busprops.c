/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "busprops.h"
#include "util.h"

int busprops_get_all(sd_bus *bus, const char *destination, const char *path, const char *interface,
                     sd_bus_error *error, busprops_each_t each, void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
        int r;

        r = sd_bus_call_method(bus, destination, path, "org.freedesktop.DBus.Properties", "GetAll", error, &reply,
                               "s", interface);
        if (r < 0)
                return r;
        return busprops_read(reply, each, userdata);
}

int busprops_read(sd_bus_message *reply, busprops_each_t each, void *userdata) {
        int r;

        r = sd_bus_message_enter_container(reply, 'a', "{sv}");
        if (r < 0)
                return r;
        while ((r = sd_bus_message_enter_container(reply, 'e', "sv")) > 0) {
                const char *name;

                if ((r = sd_bus_message_read_basic(reply, 's', &name)) < 0)
                        return r;
                r = each(reply, name, userdata);
                if (r == 0)
                        r = sd_bus_message_skip(reply, "v");
                if (r < 0)
                        return r;
                if ((r = sd_bus_message_exit_container(reply)) < 0)
                        return r;
        }
        return r < 0 ? r : 0;
}
