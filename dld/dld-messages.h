/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* MESSAGE_ID= of dld's structured journal entries (journalctl MESSAGE_ID=...).
 * Every entry about a unit also carries UNIT= and OBJECT_SYSTEMD_UNIT=, so
 * `journalctl -u UNIT` shows dld's verdicts next to the unit's own log. */

#define DLD_MESSAGE_REFUSED          "f419c3e6574f4f318963d67cd642e73e"  /* a request was refused */
#define DLD_MESSAGE_ADMITTED         "ea27b833bfe748698e1f00d594013a63"  /* a request was admitted */
#define DLD_MESSAGE_RELEASED         "d6bf3b656afb4f30890f722e41c1875b"  /* a reservation was given back */
#define DLD_MESSAGE_THREADS_OVER     "b0006b2ff786441db38dca42ca6ce54e"  /* a unit's task template had no room for a task */
#define DLD_MESSAGE_POLICY_APPLIED   "24269fef2bbc44e3865d4b0bce88a926"  /* a policy is in force */
#define DLD_MESSAGE_POLICY_REJECTED  "6ad59c38e7b247f78dc15ff8f4ec73c8"  /* a policy was not applied */
#define DLD_MESSAGE_DROPIN_INVALID   "96f14a8deb3a4050a65e48993a209984"  /* a unit's X-Deadline keys are malformed */
#define DLD_MESSAGE_PRIVILEGE        "547f328941374217bc1bcdf202886664"  /* dld lacks something it needs (privileges.h) */
