/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* MESSAGE_ID= of dld's structured journal entries (journalctl MESSAGE_ID=...).
 * Every entry about a unit also carries UNIT= and OBJECT_SYSTEMD_UNIT=, so
 * `journalctl -u UNIT` shows dld's verdicts next to the unit's own log. */

#define DLD_MESSAGE_REFUSED          "5c1f0c8a5b3e4a2f9c6d8e0b1a2f3c4d"  /* a request was refused */
#define DLD_MESSAGE_ADMITTED         "2b8e6f1d4c9a4e7b8f0a1c3d5e7f9a0b"  /* a request was admitted */
#define DLD_MESSAGE_RELEASED         "9c4a2e6f8b1d4f3a9e5c7b0d2f4a6c8e"  /* a reservation was given back */
#define DLD_MESSAGE_POLICY_APPLIED   "e3d7a1b5c9f24e6a8b0c2d4f6a8c0e2b"  /* a policy is in force */
#define DLD_MESSAGE_POLICY_REJECTED  "4a6c8e0b2d4f4a6c8e1b3d5f7a9c1e3d"  /* a policy was not applied */
#define DLD_MESSAGE_DROPIN_INVALID   "b7d9f1a3c5e74b9d8f2a4c6e8b0d2f4a"  /* a unit's X-Deadline keys are malformed */
