package shell

// Writes to disks, devices and kernel files.

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// redirect looks at one redirection: a write to a device or outside the
// workspace, a network path.
func (r *reader) redirect(rd *syntax.Redirect, target, source string) {
	if strings.Contains(target, "/dev/tcp/") || strings.Contains(target, "/dev/udp/") {
		r.fetched(fmt.Sprintf("%s opens a network connection", Shown(target)))
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut, syntax.DplOut:
		if rd.Op != syntax.DplOut {
			r.wrote(target)
		}
		if isDevice(target) {
			r.find("device-write", Shown(rd.Op.String()+" "+target), source)
		}
	}
	r.redirectWrites(rd, target, source)
}

// isDevice reports whether p names a device or kernel file through which a
// write changes the machine: /dev (but /dev/null and the like), /sys,
// /proc/sysrq-trigger, /proc/sys.
func isDevice(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	p = path.Clean(p)
	switch {
	case slices.Contains(safeDevices, p), strings.HasPrefix(p, "/dev/fd/"), strings.HasPrefix(p, "/dev/shm/"),
		strings.HasPrefix(p, "/dev/tcp/"), strings.HasPrefix(p, "/dev/udp/"), strings.HasPrefix(p, "/dev/pts/"):
		return false
	}
	return strings.HasPrefix(p, "/dev/") || strings.HasPrefix(p, "/sys/") || p == "/proc/sysrq-trigger" || strings.HasPrefix(p, "/proc/sys/")
}

// deviceWriters write to the files named in any of their arguments, as
// far as this check reads them; the commands whose targets writeTargets
// knows are read through it.
var deviceWriters = []string{"shred", "truncate", "pv", "ddrescue", "sponge", "rsync"}

// deviceArgs finds device paths a command writes to through its
// arguments: the files writeTargets finds (dd of=…, tee, cp's and
// install's destination, curl -o …), and any argument of the other
// deviceWriters.
func (r *reader) deviceArgs(c call) {
	targets, ok := writeTargets[c.base]
	switch {
	case ok:
	case slices.Contains(deviceWriters, c.base):
		targets = func(args []string) []string { return args }
	default:
		return
	}
	for _, t := range targets(c.args()) {
		if isDevice(cleanWord(t, true)) {
			r.find("device-write", c.whole(), c.source)
			return
		}
	}
}
