#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-systemd.sh KERNEL[@systemd] - boot KERNEL ("6.12", "newest": lib.sh)
# in QEMU with systemd as PID 1: a Debian system of the kernel's suite
# (systemd-guest.sh) with the kernel's image and headers packages and
# gotrace's packages (make deb) installed by apt, DKMS building the
# module before boot, and gotrace-boot.service enabled.  The guest runs
# sd-guest-test (TAP on the console); the host then puts every trace that
# came out through every Go reader (check-trace.sh) and checks that the
# boot trace holds systemd's own tasks, journald's and udevd's in their
# units, and prints gotrace stat's table of the boot's units.  run-kernel.sh runs this for
# KERNEL@systemd.
#
# Environment: GT_VM_TIMEOUT (seconds, default 600), GT_VM_MEM (1024,
# MiB), GT_VM_CPUS (2), GT_VM_ACCEL (tcg,thread=single), GT_VM_APPEND;
# GT_SD_USER_STACKS=1: the guest's module is loaded with user_stacks=1
# (/etc/modprobe.d/gotrace.conf, as an administrator would), so that
# the boot trace and every other session record user stacks, and the
# host reports how many events got one and how many walks were cut
# short, and the share of complete walks per program
# (selftests/vm/ustack-report.sh).  With it, GT_SD_UNWIND=MODE (fp,
# eh-frame, auto): a drop-in makes gotrace-boot.service record with
# --user-stacks --unwind=MODE, and adds GT_SD_UNWIND_CAPS, if set, to
# its bounding set; once it has stopped, sd-unwind-caps says on the
# console what each capability set would let the tables read (the
# other processes' maps: Documentation/unwind.rst).
# Unset: the shipped unit as it is.
set -euo pipefail

# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# shellcheck source=systemd-guest.sh
. "$GT_VM/systemd-guest.sh"

[ $# -eq 1 ] || gt_die "usage: $0 KERNEL[@systemd]"
name=$1
kernel=${name%%@*}
case $name in
*@systemd) ;;
*@*) gt_die "run-systemd.sh runs KERNEL@systemd, not '$name'" ;;
*) name=$name@systemd ;;
esac
[ "$kernel" != debug ] || gt_die "the systemd guest boots Debian's kernels, not the debug kernel"
timeout=${GT_VM_TIMEOUT:-600}
work=$GT_CACHE/vm/$name
rm -rf "$work"
mkdir -p "$work/out"

# Preparing takes turns with run-kernel.sh's (same lock): the image
# layers, make deb and the apt state are shared.
exec 8> "$GT_CACHE/vm/.prepare.lock"
flock 8
t0=$SECONDS
gt_kernel_fetch "$kernel"
gt_sd_kernel "$KREL"
t1=$SECONDS
make -s -C "$GT_ROOT" deb > "$work/deb.log" 2>&1 ||
	{ cat "$work/deb.log" >&2; gt_die "make deb failed"; }
debs=$GT_CACHE/deb
# The host's command reads the traces (gotrace check, gotrace stat).
make -s -C "$GT_ROOT/user" >/dev/null || gt_die "cannot build user/gotrace"
t2=$SECONDS

# The run's root: a copy of the kernel layer; gotrace installed in it as
# a user does (apt, from the .deb files), then the kernel's headers
# packages, whose DKMS hook builds the module (gotrace-dkms alone
# cannot: no headers yet); the boot unit enabled; the test unit.
root=$work/root
cp -a "$SD_KROOT" "$root"
rm -f "$root/.ready"
mkdir -p "$root/tmp/gotrace" "$root/tmp/headers"
cp "$debs"/gotrace_*_amd64.deb "$debs"/gotrace-dkms_*_all.deb "$root/tmp/gotrace/"
cp "$SD_KHEADERS"/*.deb "$root/tmp/headers/"
ko=$root/lib/modules/$KREL/updates/dkms/gotrace.ko
if ! gt_sd_chroot "$root" /bin/sh -c 'cd /tmp/gotrace &&
	apt-get install -y -q --no-install-recommends ./gotrace_*.deb ./gotrace-dkms_*.deb &&
	systemctl enable gotrace-boot.service' > "$work/install.log" 2>&1; then
	tail -n 40 "$work/install.log" >&2
	gt_die "installing the packages in the guest failed (log: $work/install.log)"
fi
# Debian's DKMS compresses the module as the kernel's own are.
if ls "$ko"* >/dev/null 2>&1; then
	gt_die "DKMS built gotrace.ko for $KREL without its headers?"
fi
if ! gt_sd_chroot "$root" /bin/sh -c 'apt-get install -y -q \
	--no-install-recommends /tmp/headers/*.deb' > "$work/headers.log" 2>&1; then
	tail -n 40 "$work/headers.log" >&2
	gt_die "installing $KREL's headers in the guest failed (log: $work/headers.log)"
fi
rm -rf "$root/tmp/gotrace" "$root/tmp/headers"
if ls "$ko"* >/dev/null 2>&1; then
	prep_tap="ok - DKMS built gotrace.ko for $KREL when its headers package was installed after gotrace-dkms"
else
	tail -n 40 "$work/headers.log" >&2
	gt_die "DKMS built no gotrace.ko for $KREL when its headers came (log: $work/headers.log)"
fi
install -m 0755 "$GT_VM/sd-guest-test" "$root/usr/local/sbin/sd-guest-test"
if [ "${GT_SD_USER_STACKS:-0}" = 1 ]; then
	echo "options gotrace user_stacks=1" > "$root/etc/modprobe.d/gotrace.conf"
fi
if [ "${GT_SD_USER_STACKS:-0}" = 1 ] && [ -n "${GT_SD_UNWIND:-}" ]; then
	case $GT_SD_UNWIND in
	fp | eh-frame | auto) ;;
	*) gt_die "GT_SD_UNWIND: '$GT_SD_UNWIND' is none of fp, eh-frame, auto" ;;
	esac
	unit=
	for f in "$root/usr/lib/systemd/system/gotrace-boot.service" \
		 "$root/lib/systemd/system/gotrace-boot.service"; do
		[ -f "$f" ] && { unit=$f; break; }
	done
	[ -n "$unit" ] || gt_die "no gotrace-boot.service in the guest"
	exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
	[ -n "$exec_start" ] || gt_die "no ExecStart= in $unit"
	mkdir -p "$root/etc/systemd/system/gotrace-boot.service.d"
	{
		echo "[Service]"
		echo "ExecStart="
		# Not named in the guest: under TCG the deeper stacks take
		# longer to name than the unit's TimeoutStopSec, with
		# /dev/gotrace held meanwhile; ustack-report.sh names the
		# stripped binaries' frames from the guest's files.
		echo "ExecStart=$exec_start --user-stacks --unwind=$GT_SD_UNWIND --no-symbolize"
		# Added to the unit's set (the sets are ORed): the shipped
		# unit's covers the tables already.
		[ -z "${GT_SD_UNWIND_CAPS:-}" ] ||
			echo "CapabilityBoundingSet=$GT_SD_UNWIND_CAPS"
		echo "ExecStopPost=-/bin/systemctl --no-block start gotrace-unwind-caps.service"
	} > "$root/etc/systemd/system/gotrace-boot.service.d/unwind.conf"
	install -m 0755 "$GT_VM/sd-unwind-caps" "$root/usr/local/sbin/sd-unwind-caps"
	cat > "$root/etc/systemd/system/gotrace-unwind-caps.service" <<'EOF'
[Unit]
Description=What gotrace-boot.service's sandbox lets the unwind tables read

[Service]
Type=oneshot
ExecStart=/usr/local/sbin/sd-unwind-caps
StandardOutput=journal+console
StandardError=journal+console
EOF
fi
cat > "$root/etc/systemd/system/gotrace-selftest.service" <<'EOF'
[Unit]
Description=gotrace's tests of the systemd guest
After=multi-user.target

[Service]
# Not oneshot: the boot counts as finished (gotrace-boot-done.service)
# only once no start job is left, and the tests wait for that.
Type=exec
ExecStart=/usr/local/sbin/sd-guest-test
StandardOutput=journal+console
StandardError=journal+console

[Install]
WantedBy=multi-user.target
EOF
ln -sf /etc/systemd/system/gotrace-selftest.service \
	"$root/etc/systemd/system/multi-user.target.wants/gotrace-selftest.service"
# Up to 6.x the image is in /boot; from 7.x in the modules' directory.
for f in "$root/boot/vmlinuz-$KREL" "$root/usr/lib/modules/$KREL/vmlinuz"; do
	[ -f "$f" ] && { cp "$f" "$work/vmlinuz"; break; }
done
[ -f "$work/vmlinuz" ] || gt_die "no kernel image for $KREL in the guest"
cp "$root/boot/initrd.img-$KREL" "$work/initrd.img"
# Room for the traces and the journal beyond what the root holds.
size=$(( $(du -sm "$root" | cut -f1) + 768 ))
mkfs.ext4 -q -F -L gotrace-root -d "$root" "$work/disk.img" "${size}M"
rm -rf "$root"
t3=$SECONDS
flock -u 8
exec 8>&-
echo "[$name] # prepared in $((t3 - t0)) s: guest layers $((t1 - t0)) s, make deb $((t2 - t1)) s, install + image $((t3 - t2)) s (${size} MiB)"

log=$work/console.log
tar=$work/out.tar
: > "$tar"
gt_log "booting $KREL with systemd (-smp ${GT_VM_CPUS:-2})"
t4=$SECONDS
set +e
timeout --foreground "$timeout" qemu-system-x86_64 \
	-accel "${GT_VM_ACCEL:-tcg,thread=single}" -smp "${GT_VM_CPUS:-2}" \
	-m "${GT_VM_MEM:-1024}" -display none -monitor none -no-reboot \
	-serial "file:$log" \
	-kernel "$work/vmlinuz" -initrd "$work/initrd.img" \
	-append "root=/dev/vda rw console=ttyS0 panic=-1 oops=panic loglevel=5 no_timer_check systemd.show_status=false ${GT_VM_APPEND:-}" \
	-drive "file=$work/disk.img,format=raw,if=virtio,cache=unsafe" \
	-device virtio-serial-pci \
	-chardev "file,id=gtout,path=$tar" \
	-device virtserialport,chardev=gtout,name=gtout \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 </dev/null
rc=$?
set -e
t5=$SECONDS
tr -d '\r' < "$log" > "$log.txt"
tar -xf "$tar" -C "$work/out" 2>/dev/null || true
echo "[$name] # booted and tested in $((t5 - t4)) s"
# The image is made again by every run: 900 MB not worth keeping.
rm -f "$work/disk.img"

case $rc in
1) guest=pass ;;
3) guest=fail ;;
124) guest="timed out after $timeout s" ;;
*) guest="did not finish (qemu exit $rc)" ;;
esac
# The tests' output reaches the console through the journal, each line
# prefixed with the kernel's time and "sd-guest-test[PID]: ".
sed -n 's/^\[ *[0-9.]*\] sd-guest-test\[[0-9]*\]: //p' "$log.txt" > "$work/tap.txt"
sed "s/^/[$name] /" "$work/tap.txt"
if [ "$guest" != pass ] && [ "$guest" != fail ]; then
	gt_log "[$name] the guest $guest; its console:"
	tail -n 60 "$log.txt" | sed "s/^/[$name] console: /" >&2
fi
echo "[$name] $prep_tap"
passed=$(($(grep -c '^ok ' "$work/tap.txt" || true) + 1))
failed=$(grep -c '^not ok ' "$work/tap.txt" || true)
[ "$guest" = pass ] || [ "$failed" -gt 0 ] || failed=1

# host_test WHAT LOG COMMAND...: as in run-kernel.sh.
host_test() {
	local what=$1 log=$2
	shift 2
	if "$@" > "$log" 2>&1; then
		passed=$((passed + 1))
		echo "[$name] ok - $what"
	else
		failed=$((failed + 1))
		echo "[$name] not ok - $what"
	fi
	sed "s/^/[$name] #   /" "$log"
}

if gt_kernel_reports "$name" "$log.txt" "$work/out/dmesg.txt" \
	"$work/reports.txt"; then
	passed=$((passed + 1))
else
	failed=$((failed + 1))
fi

gotrace=$GT_ROOT/user/gotrace

# boot_tasks TRACE: the boot trace names the tasks of systemd itself and
# of the units every boot starts (gotrace stat's task names are the
# tasks' comm, 15 characters at most).
boot_tasks() {
	local json want missing=
	"$gotrace" stat -n 15 "$1"
	json=$("$gotrace" stat -j -n 0 "$1")
	for want in systemd systemd-journal systemd-udevd; do
		grep -q "\"name\": \"$want\"," <<< "$json" ||
			missing="$missing $want"
	done
	[ -z "$missing" ] || { echo "no task named:$missing"; return 1; }
}

# boot_units TRACE: every task is tagged with its systemd unit: some of
# journald's and udevd's tasks are in their own service's, and none of
# them in another one (a task that never ran in the trace has none).
# Prints gotrace stat's table of the boot's units, whose columns stay in
# line whatever the length of a unit's name (every row as wide as the
# header; a boot has systemd-update-utmp-runlevel.service, 36 bytes).
boot_units() {
	local json pair comm unit bad= table
	table=$("$gotrace" stat -n 0 "$1" |
		sed -n '/^units by run time:/,/^$/p' | sed '1d;/^$/d')
	printf '%s\n' "$table"
	[ "$(printf '%s\n' "$table" | awk '{ print length }' | sort -u |
	     wc -l)" -eq 1 ] || bad="; the units table's rows are not as wide as its header"
	json=$("$gotrace" stat -j -n 0 "$1" |
		sed -n '/"tasks_by_run"/,/"tasks_by_latency"/p')
	for pair in systemd-journal=systemd-journald.service \
		    systemd-udevd=systemd-udevd.service; do
		comm=${pair%%=*}
		unit=${pair#*=}
		grep -q "\"name\": \"$comm\",.*\"unit\": \"$unit\" }" \
			<<< "$json" || bad="$bad; no $comm task in $unit"
		if grep "\"name\": \"$comm\"," <<< "$json" |
		   grep -v "\"unit\": \"\($unit\)\?\" }"; then
			bad="$bad; $comm tasks in another unit (above)"
		fi
	done
	[ -z "$bad" ] || { echo "${bad#; }"; return 1; }
}

for t in boot session load flight-user flight-stop; do
	f=$work/out/$t.trace
	if [ ! -s "$f" ]; then
		failed=$((failed + 1))
		echo "[$name] not ok - $t.trace came out of the guest"
		continue
	fi
	host_test "$t.trace ($(stat -c %s "$f") bytes) accepted by every Go reader (--pprof)" \
		"$f.check" "$GT_ROOT/selftests/check-trace.sh" --pprof "$f"
	host_test "$t.trace passes gotrace check" "$f.gtcheck" \
		"$gotrace" check "$f"
done
[ -s "$work/out/boot.trace" ] &&
	host_test "boot.trace holds systemd, systemd-journald and systemd-udevd" \
		"$work/out/boot.tasks" boot_tasks "$work/out/boot.trace"
[ -s "$work/out/boot.trace" ] &&
	host_test "boot.trace: journald's and udevd's tasks are in their units" \
		"$work/out/boot.units" boot_units "$work/out/boot.trace"

if [ "${GT_SD_USER_STACKS:-0}" = 1 ] && [ -s "$work/out/boot.trace" ]; then
	# The guest's programs, for their .eh_frame: its layers, and the
	# gotrace package installed in them.
	rm -rf "$work/debroot"
	dpkg-deb -x "$debs"/gotrace_*_amd64.deb "$work/debroot" 2>/dev/null || true
	host_test "boot.trace: user stacks walked and counted${GT_SD_UNWIND:+ (--unwind=$GT_SD_UNWIND)}" \
		"$work/out/boot.ustack" \
		env GT_USTACK_ROOT="$work/debroot:$SD_KROOT" \
		"$GT_VM/ustack-report.sh" \
		"$work/out/boot.trace" "$work/out/boot-units.journal"
	rm -rf "$work/debroot"
	# sd-unwind-caps's lines, as the console has them.
	sed -n 's/^\[ *[0-9.]*\] sd-unwind-caps\[[0-9]*\]: //p' "$log.txt" |
		sed "s/^/[$name] # /"
fi

echo "[$name] $KREL: $passed passed, $failed failed"
echo "$passed $failed" > "$work/counts"
[ "$failed" -eq 0 ]
