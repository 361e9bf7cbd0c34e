//go:build linux

package tools

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Landlock (up to ABI 7 at least) governs a file's contents, not its
// metadata: under it a command may still chmod, chown, touch or set extended
// attributes on any file it can name — `chmod 666 /etc/passwd` as root. So
// where it can, the helper starts the confining stage in a private mount
// namespace, in which every mount is read-only except the workspace and the
// command's temporary folder: the kernel then refuses any change outside
// them, data or metadata, with "Read-only file system". The namespace is
// the command's alone; glassbox and the rest of the machine see no change.

// privateMountsArg tells the confining stage it was started in a mount
// namespace of its own (and may therefore remount it).
const privateMountsArg = "private-mounts"

// privateMountsAttr is how the helper starts the confining stage in a
// mount namespace of its own. Making one needs CAP_SYS_ADMIN: root has it;
// for anyone else it would take a user namespace, which glassbox does not
// make (files would show as owned by nobody), so the line says what stays
// open.
func privateMountsAttr() (*syscall.SysProcAttr, error) {
	if os.Geteuid() != 0 {
		return nil, errNoPrivateMounts
	}
	return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS}, nil
}

var errNoPrivateMounts = errors.New("the read-only view of the rest of the file system needs root (a mount namespace of its own)")

// ownMountNamespace reports whether this process has a mount namespace
// other than its parent's: the confining stage checks this before it
// touches a mount, so it can never remount the machine's own.
func ownMountNamespace() bool {
	mine, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return false
	}
	parents, err := os.Readlink("/proc/" + strconv.Itoa(os.Getppid()) + "/ns/mnt")
	return err == nil && mine != parents
}

// readOnlyOutside makes every mount of this (private) namespace read-only,
// then mounts ws and tmp over themselves read-write, and moves into ws
// again (the working folder still pointed into the read-only mount).
func readOnlyOutside(ws, tmp string) error {
	if !ownMountNamespace() {
		return errors.New("not in a mount namespace of its own")
	}
	// Nothing done here may reach the machine's mounts.
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the mounts private: %w", err)
	}
	ro := &unix.MountAttr{Attr_set: unix.MOUNT_ATTR_RDONLY}
	if err := unix.MountSetattr(unix.AT_FDCWD, "/", unix.AT_RECURSIVE, ro); err != nil {
		return fmt.Errorf("making the file system read-only: %w", err)
	}
	rw := &unix.MountAttr{Attr_clr: unix.MOUNT_ATTR_RDONLY}
	for _, dir := range []string{ws, tmp} {
		if err := unix.Mount(dir, dir, "", unix.MS_BIND|unix.MS_REC, ""); err != nil {
			return fmt.Errorf("mounting %s: %w", dir, err)
		}
		if err := unix.MountSetattr(unix.AT_FDCWD, dir, unix.AT_RECURSIVE, rw); err != nil {
			return fmt.Errorf("making %s writable: %w", dir, err)
		}
	}
	return os.Chdir(ws)
}
