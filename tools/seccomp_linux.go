//go:build linux

package tools

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/elastic/go-seccomp-bpf/arch"
	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// The seccomp filter is the second half of the sandbox: Landlock on this
// kernel (ABI 7) cannot refuse a connection to a Unix socket file, UDP or a
// raw socket, nor a chmod that sets the setuid bit, so the kernel's system
// call filter refuses them. It survives exec and cannot be removed.
//
// Every condition looks at the low 32 bits of an argument only (BitsSet /
// BitsNotSet with 32-bit masks): the kernel reads int and mode_t arguments
// from the low half of the register, and a filter that compared all 64
// bits would let `socket(0x100000001, …)` — AF_UNIX to the kernel — pass.

// Constants the filter compares against.
const (
	low32      = 0xFFFFFFFF
	setIDBits  = unix.S_ISUID | unix.S_ISGID
	createBits = unix.O_CREAT | 0o20000000 // O_CREAT or __O_TMPFILE: open makes a file, so its mode counts
	// mknod of a character device, block device or FIFO: S_IFCHR (020000),
	// S_IFBLK (060000) and S_IFIFO (010000) all have a bit of 030000 set;
	// S_IFREG (0100000) and S_IFSOCK (0140000) have none.
	specialFileBits = 0o30000
)

// anyBit matches an argument with any of mask's bits set; noBit with none.
func anyBit(arg uint32, mask uint32) seccomp.Condition {
	return seccomp.Condition{Argument: arg, Operation: seccomp.BitsSet, Value: uint64(mask)}
}

func noBit(arg uint32, mask uint32) seccomp.Condition {
	return seccomp.Condition{Argument: arg, Operation: seccomp.BitsNotSet, Value: uint64(mask)}
}

// and joins conditions on several arguments into one set (all must hold).
func and(sets ...seccomp.ArgumentConditions) seccomp.ArgumentConditions {
	var out seccomp.ArgumentConditions
	for _, s := range sets {
		out = append(out, s...)
	}
	return out
}

// errnoAction refuses a call with errno (the library's ActionErrno is always
// EPERM).
func errnoAction(errno syscall.Errno) seccomp.Action {
	return seccomp.Action(uint32(seccomp.ActionErrno) | uint32(errno))
}

// socketDenials are the sets of socket(domain, type, protocol) arguments the
// filter refuses (any set refuses). Allowed: AF_INET and AF_INET6 stream
// sockets speaking TCP (Landlock decides where they may connect) and, when
// the policy grants network, datagram sockets (UDP, ping). Everything else —
// AF_UNIX (pathname and abstract sockets alike), AF_PACKET, AF_NETLINK,
// AF_VSOCK, raw sockets, SCTP and MPTCP streams, which Landlock's TCP rules
// do not cover — is refused.
func socketDenials(network bool) []seccomp.ArgumentConditions {
	const domain, typ, proto = 0, 1, 2
	// domain ∉ {AF_INET (2), AF_INET6 (10)}: both have bit 1 set and no
	// bit outside 0b1010.
	sets := []seccomp.ArgumentConditions{
		{anyBit(domain, low32&^(unix.AF_INET|unix.AF_INET6))},
		{noBit(domain, unix.AF_INET)},
	}
	// The socket type is the low 4 bits (the rest are SOCK_NONBLOCK and
	// SOCK_CLOEXEC).
	if network {
		// type ∉ {SOCK_STREAM (1), SOCK_DGRAM (2)}
		sets = append(sets,
			seccomp.ArgumentConditions{anyBit(typ, 0xC)},
			seccomp.ArgumentConditions{anyBit(typ, unix.SOCK_STREAM), anyBit(typ, unix.SOCK_DGRAM)},
			seccomp.ArgumentConditions{noBit(typ, 0x3)})
	} else {
		// type ≠ SOCK_STREAM
		sets = append(sets,
			seccomp.ArgumentConditions{anyBit(typ, 0xE)},
			seccomp.ArgumentConditions{noBit(typ, unix.SOCK_STREAM)})
	}
	// A stream socket whose protocol is not 0 or IPPROTO_TCP (6).
	stream := seccomp.ArgumentConditions{noBit(typ, 0xF&^unix.SOCK_STREAM), anyBit(typ, unix.SOCK_STREAM)}
	sets = append(sets,
		and(stream, seccomp.ArgumentConditions{anyBit(proto, low32&^unix.IPPROTO_TCP)}),
		and(stream, seccomp.ArgumentConditions{anyBit(proto, 2), noBit(proto, 4)}),
		and(stream, seccomp.ArgumentConditions{anyBit(proto, 4), noBit(proto, 2)}))
	return sets
}

// seccompPolicy is the filter for a command.
func seccompPolicy(network bool) seccomp.Policy {
	info, err := arch.GetInfo("")
	if err != nil {
		return seccomp.Policy{} // seccompAvailable refused this architecture already
	}
	has := func(name string) bool {
		_, ok := info.SyscallNames[name]
		return ok
	}
	var refuse []seccomp.NameWithConditions
	add := func(name string, sets ...seccomp.ArgumentConditions) {
		if !has(name) {
			return // not on this architecture (arm64 has no chmod, open, mknod)
		}
		for _, s := range sets {
			refuse = append(refuse, seccomp.NameWithConditions{Name: name, Conditions: s})
		}
	}
	add("socket", socketDenials(network)...)
	// No setuid or setgid file: not by chmod, not by creating one with
	// that mode, not by mknod.
	for name, arg := range map[string]uint32{"chmod": 1, "fchmod": 1, "fchmodat": 2, "fchmodat2": 2, "creat": 1} {
		add(name, seccomp.ArgumentConditions{anyBit(arg, setIDBits)})
	}
	add("open", seccomp.ArgumentConditions{anyBit(1, createBits), anyBit(2, setIDBits)})
	add("openat", seccomp.ArgumentConditions{anyBit(2, createBits), anyBit(3, setIDBits)})
	// No device node or FIFO (Landlock refuses them too where it runs).
	for name, arg := range map[string]uint32{"mknod": 1, "mknodat": 2} {
		add(name, seccomp.ArgumentConditions{anyBit(arg, setIDBits)}, seccomp.ArgumentConditions{anyBit(arg, specialFileBits)})
	}
	// No new user namespace (in which a program is root again, with the
	// kernel's whole namespaced surface to try), and no joining another
	// process's namespaces.
	add("unshare", seccomp.ArgumentConditions{anyBit(0, unix.CLONE_NEWUSER)})
	add("clone", seccomp.ArgumentConditions{anyBit(cloneFlagsArg(info), unix.CLONE_NEWUSER)})
	// Calls the filter cannot look into are refused as "not implemented",
	// so programs fall back to the ones it can: openat2's mode sits in a
	// struct, clone3's flags too (the C library then uses clone), and
	// io_uring makes sockets and opens files without system calls the
	// filter would see. The keyring is glassbox's, not theirs.
	var absent []string
	for _, name := range []string{"openat2", "clone3", "io_uring_setup", "io_uring_enter", "io_uring_register", "add_key", "keyctl", "request_key"} {
		if has(name) {
			absent = append(absent, name)
		}
	}
	return seccomp.Policy{
		DefaultAction: seccomp.ActionAllow,
		Syscalls: []seccomp.SyscallGroup{
			{NamesWithCondtions: refuse, Action: errnoAction(unix.EPERM)},
			{Names: []string{"setns"}, Action: errnoAction(unix.EPERM)},
			{Names: absent, Action: errnoAction(unix.ENOSYS)},
		},
	}
}

// cloneFlagsArg is the argument of clone that holds its flags: the first,
// but the second on s390, whose clone takes the stack first.
func cloneFlagsArg(info *arch.Info) uint32 {
	if strings.HasPrefix(info.Name, "s390") {
		return 1
	}
	return 0
}

// seccompAvailable says whether this kernel filters system calls.
func seccompAvailable() error {
	if !seccomp.Supported() {
		return errors.New("this kernel has no seccomp filter (CONFIG_SECCOMP_FILTER)")
	}
	if _, err := arch.GetInfo(""); err != nil {
		return fmt.Errorf("no seccomp system call table for this architecture: %v", err)
	}
	return nil
}

// loadSeccomp installs the filter on every thread of this process (and so
// on the shell this process becomes). The library's filter lets calls of
// a foreign architecture through (a 64-bit program may still enter the
// kernel through the 32-bit int 0x80 gate, where socket is another number),
// so a second filter first refuses every call that is not of this
// program's own architecture.
func loadSeccomp(network bool) error {
	info, err := arch.GetInfo("")
	if err != nil {
		return err
	}
	if err := seccomp.LoadFilter(seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy:     seccompPolicy(network),
	}); err != nil {
		return err
	}
	return loadRawFilter([]bpf.Instruction{
		bpf.LoadAbsolute{Off: 4, Size: 4}, // seccomp_data.arch
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(info.ID), SkipTrue: 1},
		bpf.RetConstant{Val: uint32(seccomp.ActionErrno) | uint32(unix.ENOSYS)},
		bpf.RetConstant{Val: uint32(seccomp.ActionAllow)},
	})
}

// loadRawFilter installs a BPF program as a seccomp filter on every thread.
func loadRawFilter(prog []bpf.Instruction) error {
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return err
	}
	filter := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		filter[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	fprog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	if errno != 0 {
		return errno
	}
	return nil
}

// keptCapabilities are the capabilities a command run as root keeps: those
// that let root work in a workspace that is not its own (owners and
// permission bits). The others — loading kernel modules, raw I/O, mknod,
// network administration, setting file capabilities, tracing, mounting,
// rebooting, the system clock — go, from the bounding set too, so no
// program the command runs gets them back.
var keptCapabilities = []uintptr{unix.CAP_CHOWN, unix.CAP_DAC_OVERRIDE, unix.CAP_FOWNER}

// dropCapabilities reduces this thread's capabilities to keptCapabilities
// (capabilities are per thread: the caller stays on this thread until it
// execs). A process without capabilities (not root) has nothing to drop.
func dropCapabilities() error {
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capget: %w", err)
	}
	if data[0].Permitted == 0 && data[1].Permitted == 0 && data[0].Inheritable == 0 && data[1].Inheritable == 0 {
		return nil
	}
	// Root regains its bounding set at every exec, so that must shrink.
	// Anyone else (in the user namespace of the read-only view, holding
	// CAP_SYS_ADMIN there as an ambient capability) loses every capability
	// at the exec of a non-root program once the ambient set is clear.
	if os.Geteuid() == 0 {
		if err := shrinkBoundingSet(); err != nil {
			return err
		}
	}
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
		return fmt.Errorf("clearing ambient capabilities: %w", err)
	}
	var mask [2]uint32
	if os.Geteuid() == 0 {
		for _, c := range keptCapabilities {
			mask[c/32] |= 1 << (c % 32)
		}
	}
	for i := range data {
		data[i].Effective &= mask[i]
		data[i].Permitted &= mask[i]
		data[i].Inheritable = 0
	}
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("capset: %w", err)
	}
	return nil
}

// shrinkBoundingSet drops every capability but keptCapabilities from the
// bounding set, up to the kernel's last.
func shrinkBoundingSet() error {
	last := uintptr(63)
	if b, err := os.ReadFile("/proc/sys/kernel/cap_last_cap"); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			last = uintptr(n)
		}
	}
	for c := uintptr(0); c <= last; c++ {
		if slices.Contains(keptCapabilities, c) {
			continue
		}
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, c, 0, 0, 0); err != nil && !errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("dropping capability %d from the bounding set: %w", c, err)
		}
	}
	return nil
}
