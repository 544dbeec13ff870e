#!/bin/sh
# Example: a podman container asking dld for 2ms every 20ms on each CPU
# (units/CONTAINERS.md). The OCI hook (hooks.d/50-dlsched.json) has dld
# admit its scope, libpod-ID.scope in deadline-media.slice (group "media"),
# before IMAGE's command runs; every thread of the container then runs
# SCHED_DEADLINE 2ms/20ms. A refusal in a group whose on_refusal is "fail"
# fails podman run (status 126) with the reason on its stderr; it is in the
# journal too: journalctl -t dlsched-oci-hook CONTAINER_NAME=media-1.
# Tested in the guest by tests/guest/68-dld-containers.sh.
set -e
IMAGE=${1:?usage: podman-media-container.sh IMAGE [COMMAND...]}
shift
exec podman run -d --name media-1 --cgroup-parent=deadline-media.slice \
	--annotation io.dlsched.runtime=2ms \
	--annotation io.dlsched.period=20ms \
	--annotation io.dlsched.threads=all \
	"$IMAGE" "$@"
