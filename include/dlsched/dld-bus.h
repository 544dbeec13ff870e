/* SPDX-License-Identifier: GPL-2.0-or-later */
#pragma once

/* Names of dld's D-Bus API, shared with dlconf. Documented in org.dlsched.Dld1.xml. */

#define DLD_BUS_NAME            "org.dlsched.Dld1"
#define DLD_BUS_PATH            "/org/dlsched/Dld1"
#define DLD_BUS_INTERFACE       "org.dlsched.Dld1.Manager"

#define DLD_ERROR_REFUSED            "org.dlsched.Dld1.Error.Refused"
#define DLD_ERROR_INVALID_REQUEST    "org.dlsched.Dld1.Error.InvalidRequest"
#define DLD_ERROR_NO_SUCH_UNIT       "org.dlsched.Dld1.Error.NoSuchUnit"
#define DLD_ERROR_UNIT_NOT_ACTIVE    "org.dlsched.Dld1.Error.UnitNotActive"
#define DLD_ERROR_NOT_IN_GROUP       "org.dlsched.Dld1.Error.NotInGroup"
#define DLD_ERROR_NO_SUCH_SERVICE    "org.dlsched.Dld1.Error.NoSuchService"
#define DLD_ERROR_POLICY_INVALID     "org.dlsched.Dld1.Error.PolicyInvalid"
#define DLD_ERROR_APPLY_FAILED       "org.dlsched.Dld1.Error.ApplyFailed"
#define DLD_ERROR_KERNEL_UNSUPPORTED "org.dlsched.Dld1.Error.KernelUnsupported"

/* Signatures of the structured results. */
#define DLD_GROUP_SIGNATURE     "(ssxtttttuus)"
#define DLD_SERVICE_SIGNATURE   "(ssstttutuusssss)"
#define DLD_VERDICT_SIGNATURE   "(sss)"
