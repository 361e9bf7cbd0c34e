package shell

// The named checks of a command line (a policy rule's command_checks): each
// looks at every simple command of a reading for one class of harm,
// whatever the spelling, and notes what a reading cannot know.

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
)

// checks names the checks a rule may use, with what each finds.
var checks = map[string]string{
	"privilege-escalation":     "runs a command as another user (sudo, su, doas, pkexec, run0), in any position",
	"delete-outside-workspace": "deletes or changes files outside the workspace (rm, chmod, chown, mv, shred, truncate, find -delete …): /, ~, $HOME, a path outside, or a relative path after cd outside",
	"write-outside-workspace":  "writes files outside the workspace (> and >>, tee, cp, mv, ln, install, dd of=, touch, mkdir, sed -i, curl -o, wget -O): ~, $HOME, a path outside, or a relative path after cd outside; not $TMPDIR/…, nor /dev, /proc, /sys (device-write)",
	"download-to-interpreter":  "feeds a download (curl, wget, nc, /dev/tcp …) to a shell or interpreter: a pipe, <(…), >(…), $(…), a variable",
	"fork-bomb":                "defines a function that starts itself without waiting, or loops forever starting background commands",
	"device-write":             "writes to a disk or device (> /dev/sda, dd of=/dev/…, tee /dev/…), or makes a device node",
	"disk-format":              "formats or partitions a disk (mkfs, mkswap, wipefs, fdisk, parted …)",
	"power-off":                "shuts down or restarts the machine",
}

// Checks names the checks a policy rule may use (its command_checks), each
// with what it finds.
func Checks() map[string]string { return maps.Clone(checks) }

// privilegeWords are the names privilegeIn looks for.
var privilegeWords = []string{"sudo", "doas", "pkexec", "run0"}

// privilegeIn finds sudo, doas, pkexec or run0 in s as a word of its own:
// not inside a longer name (pseudo, sudoers, sudo.conf, sudo-rs is
// sudo-rs). It returns the name, or "". A scan, not a regular expression:
// it runs on every word and on whole interpreter programs.
func privilegeIn(s string) string {
	for _, name := range privilegeWords {
		if hasWord(s, name) {
			return name
		}
	}
	return ""
}

// hasWord reports whether name stands in s as a word of its own: no part
// of a name (isNamePart) right before or after it.
func hasWord(s, name string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isNamePart(s[i-1])) && (end == len(s) || !isNamePart(s[end])) {
			return true
		}
		from = i + 1
	}
}

// isNamePart reports whether c may be part of a program's name: a letter,
// a digit, _ . - or any byte of a non-ASCII letter.
func isNamePart(c byte) bool {
	return c == '_' || c == '.' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// callContext is where a simple command stands.
type callContext struct {
	source string
	depth  int
	stream bool  // its standard input is a stream that may carry code
	stdin  stdin // what its redirections give it as standard input
}

var (
	privilegeName = []string{"sudo", "doas", "pkexec", "run0", "su", "runuser", "ksu", "sg"}
	fetchers      = []string{"curl", "wget", "wget2", "nc", "ncat", "netcat", "socat", "telnet", "fetch", "aria2c", "axel",
		"http", "https", "xh", "curlie", "lwp-request", "GET", "POST", "HEAD", "lynx", "links", "w3m", "elinks",
		"ftp", "tftp", "sftp", "scp", "ssh", "rsync", "openssl", "gnutls-cli"}
	shellNames = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish", "csh", "tcsh", "posh", "rbash", "ksh93", "oksh", "loksh"}
	diskTools  = []string{"mke2fs", "mkswap", "wipefs", "fdisk", "sfdisk", "cfdisk", "gdisk", "sgdisk", "parted", "blkdiscard",
		"mkdosfs", "mkntfs", "zpool", "pvcreate", "vgcreate", "lvremove", "cryptsetup", "mdadm", "badblocks"}
	powerNames = []string{"shutdown", "reboot", "halt", "poweroff"}
	// changers change or remove the files named in their arguments.
	changers = []string{"rm", "rmdir", "unlink", "shred", "srm", "wipe", "chmod", "chown", "chgrp", "chattr", "setfacl",
		"truncate", "mv", "find", "rsync"}
	safeDevices = []string{"/dev/null", "/dev/zero", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/full", "/dev/random", "/dev/urandom"}
	awks        = []string{"awk", "gawk", "mawk", "nawk"}
)

// call is one command as the checks see it: its words (the name first),
// the name without its folder (/usr/bin/sudo is sudo), and where it stands.
type call struct {
	words []string
	base  string
	callContext
}

func newCall(words []string, ctx callContext) call {
	return call{words: words, base: path.Base(words[0]), callContext: ctx}
}

func (c call) name() string   { return c.words[0] }
func (c call) args() []string { return c.words[1:] }

// whole is the command as a finding shows it.
func (c call) whole() string { return Shown(strings.Join(c.words, " ")) }

// check looks at one command (words[0] and its arguments). The steps run
// in this order, which is the order of what they find: a reason names the
// first finding of its check.
func (r *reader) check(words []string, ctx callContext) {
	c := newCall(words, ctx)
	r.checkName(c)
	r.checkHarm(c)
	r.deviceArgs(c)
	r.notePrograms(c)
	switch {
	case c.base == "cd" || c.base == "pushd" || c.base == "popd":
		r.changeDir(c.base, c.args())
	case slices.Contains(changers, c.base):
		r.changes(c)
	}
	r.writes(c)
	r.runsCode(c)
}

// checkName notes a command name only known when the command runs: a
// pattern (/usr/bin/su?o), an expansion ($X, $(…)), a brace word left
// unexpanded.
func (r *reader) checkName(c call) {
	name := c.name()
	if name != "[" && name != "[[" && (strings.ContainsAny(name, "*?") || (strings.Contains(name, "[") && strings.Contains(name, "]"))) {
		r.unknown(fmt.Sprintf("the command name %s is a pattern, matched against file names only when the command runs", Shown(name)))
	}
	if hasMarker(name) || (strings.ContainsRune(name, '{') && strings.ContainsRune(name, '}')) {
		r.unknown(fmt.Sprintf("the command name %s is only known when the command runs", Shown(name)))
		if c.stream { // curl x | "$SHELL": any interpreter may be reading
			r.fed(fmt.Sprintf("%s, a command known only at run time, reads its input", Shown(name)))
		}
	}
}

// harmByName are the checks a command's name and arguments decide alone,
// tried in order after privilegeIn has looked at every word; the first
// that matches is found.
var harmByName = []struct {
	check   string
	note    string // after the command, in what is found
	matches func(base string, args []string) bool
}{
	{"privilege-escalation", "", func(base string, _ []string) bool { return slices.Contains(privilegeName, base) }},
	{"power-off", "", powersOff},
	{"disk-format", "", func(base string, _ []string) bool {
		return strings.HasPrefix(base, "mkfs") || slices.Contains(diskTools, base)
	}},
	{"device-write", " (makes a device node)", func(base string, args []string) bool {
		return base == "mknod" && slices.ContainsFunc(args, func(a string) bool { return a == "b" || a == "c" || a == "u" })
	}},
}

// checkHarm finds sudo and its kin in any word (sudo -u x, env sudo, a
// path ending in sudo), then the first of harmByName.
func (r *reader) checkHarm(c call) {
	if slices.ContainsFunc(c.words, func(w string) bool { return privilegeIn(w) != "" }) {
		r.find("privilege-escalation", c.whole(), c.source)
	}
	for _, h := range harmByName {
		if h.matches(c.base, c.args()) {
			r.find(h.check, c.whole()+h.note, c.source)
			return
		}
	}
}

// powerVerbs are what systemctl and loginctl shut down or restart with.
var powerVerbs = []string{"poweroff", "reboot", "halt", "kexec", "soft-reboot"}

// powersOff reports whether a command shuts down or restarts the machine.
func powersOff(base string, args []string) bool {
	switch base {
	case "systemctl", "loginctl":
		return slices.ContainsFunc(args, func(a string) bool { return slices.Contains(powerVerbs, a) })
	case "init", "telinit":
		return len(args) > 0 && (args[0] == "0" || args[0] == "6")
	}
	return slices.Contains(powerNames, base)
}

// notePrograms notes what a command line does across its commands, for
// wholeLine: the files tee and downloads write, a download, a program run
// by its path, a network path opened.
func (r *reader) notePrograms(c call) {
	if c.base == "tee" {
		for _, a := range c.args() {
			if !strings.HasPrefix(a, "-") {
				r.wrote(a)
			}
		}
	}
	if slices.Contains(fetchers, c.base) {
		r.fetched(fmt.Sprintf("%s downloads (%s)", c.base, Shown(c.source)))
		r.downloadsTo(c.base, c.args())
	}
	if strings.Contains(c.name(), "/") {
		r.runs(c.name()) // ./install.sh
	}
	for _, w := range c.words {
		if strings.Contains(w, "/dev/tcp/") || strings.Contains(w, "/dev/udp/") {
			r.fetched(fmt.Sprintf("%s opens a network connection", Shown(w)))
		}
	}
}

// downloadsTo notes the files a download writes: curl -o FILE, wget -O
// FILE, and the name a URL ends in (curl -O, wget's default).
func (r *reader) downloadsTo(base string, args []string) {
	if base == "wget2" {
		base = "wget"
	}
	for _, f := range downloadOutputs(base, args) {
		r.wrote(f)
	}
	for _, a := range args {
		if strings.Contains(a, "://") {
			u := a
			if j := strings.IndexAny(u, "?#"); j >= 0 {
				u = u[:j]
			}
			r.wrote(path.Base(u))
		}
	}
}

// wrote notes a file the command line writes; runs one it runs.
func (r *reader) wrote(f string) {
	if f != "" && !hasMarker(f) {
		r.written[path.Clean(f)] = true
	}
}

func (r *reader) runs(f string) {
	if f != "" && !hasMarker(f) {
		r.ran = append(r.ran, path.Clean(f))
	}
}

func (r *reader) fetched(what string) {
	if r.fetcher == "" {
		r.fetcher = what
	}
}

func (r *reader) fed(what string) {
	if r.feeds == "" {
		r.feeds = what
	}
}
