#!/bin/sh
# Example: dld itself in a privileged podman container, managing the
# host's services and containers (units/CONTAINERS.md, "dld in a
# container"). IMAGE holds /usr/sbin/dld and its libraries (the guest's
# is /usr/lib/dlsched/containers/dld.tar: podman import it). The host
# keeps the bus policy org.dlsched.Dld1.conf and must not run dld.service.
# Tested in the guest by tests/guest/68-dld-containers.sh, on cgroup v2
# and v1.
set -e
IMAGE=${1:?usage: dld-container.sh IMAGE}
systemctl is-active --quiet dld.service && systemctl stop dld.service
exec podman run -d --name dld --network=none --privileged --pid=host --cgroupns=host \
	-v /sys/fs/cgroup:/sys/fs/cgroup:rw \
	-v /run/dbus/system_bus_socket:/run/dbus/system_bus_socket \
	-v /run/systemd/journal:/run/systemd/journal \
	-v /etc/dld/policies.d:/etc/dld/policies.d:ro \
	-v /run/dld:/run/dld \
	-v /etc/systemd/system:/etc/systemd/system:ro \
	-v /run/systemd/system:/run/systemd/system:ro \
	-v /usr/lib/systemd/system:/usr/lib/systemd/system:ro \
	"$IMAGE" /usr/sbin/dld
