/* SPDX-License-Identifier: GPL-2.0-or-later */
/* polkit's CheckAuthorization, asked asynchronously over the system bus. */
#include <errno.h>
#include <stdlib.h>

#include "polkit.h"
#include "util.h"

#define POLKIT_DEST "org.freedesktop.PolicyKit1"
#define POLKIT_PATH "/org/freedesktop/PolicyKit1/Authority"
#define POLKIT_INTERFACE "org.freedesktop.PolicyKit1.Authority"
/* CheckAuthorization's flag: the caller's agent may ask for a password. */
#define POLKIT_ALLOW_USER_INTERACTION 1u

typedef struct PolkitQuery {
        sd_bus_message *call;   /* the call waiting for the answer */
        char *action_id;
        PolkitDone done;
        void *userdata;
} PolkitQuery;

static void query_free(void *p) {
        PolkitQuery *q = p;

        sd_bus_message_unref(q->call);
        free(q->action_id);
        free(q);
}

static int on_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error) {
        _cleanup_(sd_bus_error_free) sd_bus_error denied = SD_BUS_ERROR_NULL;
        PolkitQuery *q = userdata;
        int authorized = 0, challenge = 0, r;

        (void) ret_error;
        if (sd_bus_message_is_method_error(reply, NULL))
                return q->done(q->call, q->userdata, false, sd_bus_message_get_error(reply));
        r = sd_bus_message_enter_container(reply, 'r', "bba{ss}");
        if (r >= 0)
                r = sd_bus_message_read(reply, "bb", &authorized, &challenge);
        if (r < 0) {
                sd_bus_error_set_errnof(&denied, -r, "polkit's answer could not be read: %s", strerror(-r));
                return q->done(q->call, q->userdata, false, &denied);
        }
        if (authorized)
                return q->done(q->call, q->userdata, true, NULL);
        if (challenge)
                sd_bus_error_setf(&denied, SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED,
                                  "not authorized: this needs root or the polkit action %s (authentication required)",
                                  q->action_id);
        else
                sd_bus_error_setf(&denied, SD_BUS_ERROR_ACCESS_DENIED,
                                  "not authorized: this needs root or the polkit action %s", q->action_id);
        return q->done(q->call, q->userdata, false, &denied);
}

int polkit_check_async(sd_bus_message *call, const char *action_id, PolkitDone done, void *userdata) {
        _cleanup_(sd_bus_message_unrefp) sd_bus_message *ask = NULL;
        _cleanup_(sd_bus_slot_unrefp) sd_bus_slot *slot = NULL;
        sd_bus *bus = sd_bus_message_get_bus(call);
        const char *sender = sd_bus_message_get_sender(call);
        PolkitQuery *q;
        int r;

        if (!sender)
                return -EBADMSG;
        r = sd_bus_message_new_method_call(bus, &ask, POLKIT_DEST, POLKIT_PATH, POLKIT_INTERFACE,
                                           "CheckAuthorization");
        if (r < 0)
                return r;
        r = sd_bus_message_append(ask, "(sa{sv})sa{ss}us", "system-bus-name", 1, "name", "s", sender,
                                  action_id, 0,
                                  sd_bus_message_get_allow_interactive_authorization(call) > 0 ?
                                  POLKIT_ALLOW_USER_INTERACTION : 0u,
                                  "");
        if (r < 0)
                return r;
        q = calloc(1, sizeof(*q));
        if (!q)
                return -ENOMEM;
        *q = (PolkitQuery) { .call = sd_bus_message_ref(call), .action_id = strdup(action_id),
                             .done = done, .userdata = userdata };
        if (!q->action_id) {
                query_free(q);
                return -ENOMEM;
        }
        /* The bus's default timeout, as the caller's own call has. */
        r = sd_bus_call_async(bus, &slot, ask, on_reply, q, 0);
        if (r < 0) {
                query_free(q);
                return r;
        }
        /* The slot frees the query, answered or not (the bus closing). */
        (void) sd_bus_slot_set_destroy_callback(slot, query_free);
        (void) sd_bus_slot_set_floating(slot, 1);
        return 0;
}
