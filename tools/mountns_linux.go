//go:build linux

package tools

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
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
// mount namespace and a PID namespace of its own: the stage is the init of
// the second, and mounts a /proc of it in the first, so the program sees
// only its own processes — no other command's command line, no helper's
// job, no mountinfo or status of anything else. Root makes them directly;
// anyone else inside a user namespace of their own that maps only their
// own user and group (root's files then show as owned by nobody inside
// it). Where the kernel refuses either, the stage runs without and its
// line says what stays open.
func privateMountsAttr() (*syscall.SysProcAttr, error) {
	if os.Geteuid() == 0 {
		return &syscall.SysProcAttr{Cloneflags: syscall.CLONE_NEWNS | syscall.CLONE_NEWPID}, nil
	}
	// Settings that refuse user namespaces, or the capabilities in them,
	// to users (Debian's, Ubuntu's AppArmor restriction): no use trying.
	for file, refuses := range map[string]string{
		"/proc/sys/user/max_user_namespaces":                     "0",
		"/proc/sys/kernel/unprivileged_userns_clone":             "0",
		"/proc/sys/kernel/apparmor_restrict_unprivileged_userns": "1",
	} {
		if b, err := os.ReadFile(file); err == nil && strings.TrimSpace(string(b)) == refuses {
			return nil, fmt.Errorf("%w (%s is %s)", errNoPrivateMounts, file, refuses)
		}
	}
	return &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: os.Geteuid(), HostID: os.Geteuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: os.Getegid(), HostID: os.Getegid(), Size: 1}},
		// Not root inside either, the stage would lose the namespace's
		// capabilities at exec; it keeps the one it mounts with, and drops
		// it (dropCapabilities) before the shell.
		AmbientCaps: []uintptr{unix.CAP_SYS_ADMIN},
	}, nil
}

// errNoPrivateMounts is why a stage started without its own namespace has
// no read-only view.
var errNoPrivateMounts = errors.New("this kernel would not give the command a read-only view of the rest of the file system and a PID namespace of its own (namespaces of its own)")

// mountsError is a failure to make that view inside the stage's namespace.
type mountsError struct{ err error }

func (e *mountsError) Error() string {
	return "the file system outside the workspace could not be made read-only: " + e.err.Error()
}

// mountNamespace names this process's mount namespace ("mnt:[4026531841]").
func mountNamespace() string {
	ns, _ := os.Readlink("/proc/self/ns/mnt")
	return ns
}

// privateMountsFor is the confining stage's mounts argument when it is
// started in a namespace of its own: privateMountsArg and the helper's own
// namespace, which the stage checks it is not in.
func privateMountsFor() string { return privateMountsArg + "=" + mountNamespace() }

// ownMountNamespace reports whether this process's mount namespace is not
// the helper's (parentNS): the confining stage checks this before it
// touches a mount, so it can never remount the machine's own.
func ownMountNamespace(parentNS string) bool {
	mine := mountNamespace()
	return mine != "" && parentNS != "" && mine != parentNS
}

// readOnlyOutside makes every mount of this (private) namespace read-only,
// then mounts the job's workspace and temporary folder over themselves
// read-write, covers each file of its conceal list that lies inside them or
// inside a folder of its reads with an empty read-only file (/dev/null),
// mounts a /proc of this stage's own PID namespace over the machine's, and
// moves into the workspace again (the working folder still pointed into
// the read-only mount).
func readOnlyOutside(job sandboxJob, parentNS string) error {
	ws, tmp := job.Workspace, job.Temp
	if !ownMountNamespace(parentNS) {
		return errors.New("not in a mount namespace of its own")
	}
	if os.Getpid() != 1 {
		return errors.New("not the init of a PID namespace of its own")
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
	if err := conceal(job, ro); err != nil {
		return err
	}
	if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
		return fmt.Errorf("mounting a /proc of its own: %w", err)
	}
	return os.Chdir(ws)
}

// conceal covers each file of the job's conceal list that lies inside the
// folders it may read with an empty read-only file (/dev/null).
func conceal(job sandboxJob, ro *unix.MountAttr) error {
	readable := append([]string{job.Workspace, job.Temp}, job.Reads...)
	for _, f := range job.Conceal {
		if fi, err := os.Lstat(f); err != nil || !fi.Mode().IsRegular() || !slices.ContainsFunc(readable, func(dir string) bool { return within(f, dir) }) {
			continue // gone, not a plain file, or outside: unreadable anyway
		}
		if err := unix.Mount("/dev/null", f, "", unix.MS_BIND, ""); err != nil {
			return fmt.Errorf("concealing %s: %w", f, err)
		}
		if err := unix.MountSetattr(unix.AT_FDCWD, f, 0, ro); err != nil {
			return fmt.Errorf("concealing %s: %w", f, err)
		}
	}
	return nil
}
