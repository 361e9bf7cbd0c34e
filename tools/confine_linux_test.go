//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/glassbox-dev/glassbox/tools/internal/proctest"
)

// Issue 19: the attacker's tests against the sandbox. Each runs commands
// through the real helper (this test binary serves as it, TestMain) and
// checks what the kernel let through, not what a rule said.

// requireRoot fails the test where it does not run as root: what it proves
// (a root command cannot make a device node, keeps no dangerous
// capability) means nothing otherwise, and CI runs as root.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatalf("this test needs root (euid %d): it proves what a command run as root cannot do", os.Geteuid())
	}
}

// requireSeccomp fails the test where the kernel has no seccomp filter.
func requireSeccomp(t *testing.T) {
	t.Helper()
	if err := seccompAvailable(); err != nil {
		t.Fatalf("this test needs seccomp: %v", err)
	}
}

// runCommand runs command with ec and returns the result.
func runCommand(t *testing.T, ec *ExecuteCommand, command string) Result {
	t.Helper()
	return run(t, ec, `{"command":`+quote(command)+`}`)
}

// python runs a Python program as the command `python3 -c PROGRAM`.
func python(t *testing.T, ec *ExecuteCommand, program string) Result {
	t.Helper()
	return runCommand(t, ec, "python3 -c "+shellQuote(program))
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// Item 3: no socket route out of the sandbox. A Unix socket outside the
// command's folders (tmux's, an SSH agent's, D-Bus'), an abstract one, UDP
// and raw sockets are all refused, however the call is spelled; with the
// policy's network = true UDP opens, the rest stays shut.
func TestSandboxClosesSocketRoutesOut(t *testing.T) {
	requireLandlock(t)
	requireSeccomp(t)
	outside := t.TempDir()
	unixPath := filepath.Join(outside, "agent.sock")
	unixL, err := net.Listen("unix", unixPath)
	if err != nil {
		t.Fatal(err)
	}
	defer unixL.Close()
	abstract := fmt.Sprintf("@glassbox-test-%d", os.Getpid())
	abstractL, err := net.Listen("unix", abstract)
	if err != nil {
		t.Fatal(err)
	}
	defer abstractL.Close()
	accepted := make(chan string, 8)
	for _, l := range []net.Listener{unixL, abstractL} {
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				accepted <- l.Addr().String()
				c.Close()
			}
		}()
	}
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port
	received := make(chan string, 8)
	go func() {
		buf := make([]byte, 64)
		for {
			n, _, err := udp.ReadFrom(buf)
			if err != nil {
				return
			}
			received <- string(buf[:n])
		}
	}()

	ws := newTestWorkspace(t, nil)
	ec := NewExecuteCommand(ws, 20*time.Second)
	attempts := map[string]string{
		"unix socket file": `import socket; s=socket.socket(socket.AF_UNIX); s.connect(` + pyQuote(unixPath) + `)`,
		"abstract socket":  `import socket; s=socket.socket(socket.AF_UNIX); s.connect("\0` + abstract[1:] + `")`,
		"unix datagram":    `import socket; s=socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); s.sendto(b"x", ` + pyQuote(unixPath) + `)`,
		"udp send":         fmt.Sprintf(`import socket; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.sendto(b"udp", ("127.0.0.1", %d))`, udpPort),
		"udp6 socket":      `import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)`,
		"raw icmp":         `import socket; socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)`,
		"raw ipv6":         `import socket; socket.socket(socket.AF_INET6, socket.SOCK_RAW, 58)`,
		"packet socket":    `import socket; socket.socket(socket.AF_PACKET, socket.SOCK_RAW)`,
		"netlink":          `import socket; socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)`,
		"vsock":            `import socket; socket.socket(40, socket.SOCK_STREAM)`,
		"sctp stream":      `import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 132)`,
		"mptcp stream":     `import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM, 262)`,
		"udp with flags":   `import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC | socket.SOCK_NONBLOCK)`,
		// AF_UNIX with junk in the upper half of the register: the kernel
		// reads an int, a filter comparing 64 bits would see another value.
		"high bits": `import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); r = libc.syscall(41, ctypes.c_long(0x100000001), 1, 0); e = ctypes.get_errno(); print("fd", r, e); assert r < 0, "socket made"; raise OSError(e, os.strerror(e))`,
		// socket(AF_UNIX) through the 32-bit gate (int 0x80, socket = 359).
		"int 0x80": `import ctypes, mmap
code = bytes([0xb8,0x67,0x01,0,0, 0xbb,1,0,0,0, 0xb9,1,0,0,0, 0x31,0xd2, 0xcd,0x80, 0xc3])
m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ|mmap.PROT_WRITE|mmap.PROT_EXEC)
m.write(code)
f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
r = f(); print("int80", r); assert r < 0, "socket made"; raise OSError(-r, "refused")`,
		"io_uring": `import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); p = ctypes.create_string_buffer(120); r = libc.syscall(425, 4, p); e = ctypes.get_errno(); assert r < 0, "io_uring made"; raise OSError(e, os.strerror(e))`,
	}
	for name, program := range attempts {
		t.Run(name, func(t *testing.T) {
			res := python(t, ec, program)
			if !res.IsError || !(strings.Contains(res.Content, "Operation not permitted") || strings.Contains(res.Content, "Function not implemented") || strings.Contains(res.Content, "Permission denied") || strings.Contains(res.Content, "refused")) {
				t.Fatalf("the sandbox let it through: %s", res.Content)
			}
		})
	}
	select {
	case a := <-accepted:
		t.Fatalf("a command connected to %s", a)
	case m := <-received:
		t.Fatalf("a command sent %q over UDP", m)
	case <-time.After(100 * time.Millisecond):
	}

	// What still works: TCP sockets (Landlock decides where they go),
	// socketpair (no route out), and pipes.
	res := python(t, ec, `import socket; socket.socket(socket.AF_INET, socket.SOCK_STREAM); a, b = socket.socketpair(); a.send(b"ok"); print(b.recv(2).decode())`)
	if res.IsError || !strings.Contains(res.Content, "ok") {
		t.Fatalf("TCP socket or socketpair refused: %s", res.Content)
	}

	// network = true opens UDP (and TCP); Unix and raw sockets stay shut.
	ec.AllowNetwork(true)
	res = python(t, ec, attempts["udp send"])
	if res.IsError {
		t.Fatalf("UDP with network = true: %s", res.Content)
	}
	select {
	case m := <-received:
		if m != "udp" {
			t.Fatalf("received %q", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("UDP with network = true never arrived")
	}
	if !strings.HasPrefix(res.Sandbox, "on (open: TCP, UDP) — ") || !strings.Contains(res.Sandbox, "sockets closed: Unix, raw") {
		t.Fatalf("sandbox line with network = true: %q", res.Sandbox)
	}
	for _, name := range []string{"unix socket file", "abstract socket", "raw icmp", "packet socket", "high bits"} {
		if res := python(t, ec, attempts[name]); !res.IsError {
			t.Fatalf("%s with network = true: %s", name, res.Content)
		}
	}
	select {
	case a := <-accepted:
		t.Fatalf("a command connected to %s", a)
	default:
	}
}

// pyQuote makes s a Python string literal.
func pyQuote(s string) string { return strconv.Quote(s) }

// Item 4: a command reads only the workspace, its temporary folder and the
// system's program folders. The home folder, glassbox's state folder, the
// .env in the folder glassbox was started from, /etc/shadow and a folder
// next to the workspace are out of reach — and ordinary lesson commands
// still work.
func TestSandboxRestrictsReads(t *testing.T) {
	requireLandlock(t)
	home := t.TempDir()
	writeTestFile(t, filepath.Join(home, ".ssh", "id_ed25519"), "PRIVATE KEY\n")
	state := t.TempDir()
	writeTestFile(t, filepath.Join(state, "glassbox", "sessions", "s.jsonl"), `{"secret":"session"}`+"\n")
	started := t.TempDir()
	writeTestFile(t, filepath.Join(started, ".env"), "GEMINI_API_KEY=AIzaSyDOTENV\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_STATE_HOME", state)
	ws := newTestWorkspace(t, map[string]string{
		"hello.py":  "import json, os, sys\nprint('Hello from', os.path.basename(os.getcwd()), json.dumps([1, 2]))\n",
		"notes.txt": "alpha\nbeta\ngamma\n",
	})
	outside := outsideDir(t, ws)
	ec := NewExecuteCommand(ws, 20*time.Second)

	forbidden := map[string]string{
		"home folder":      filepath.Join(home, ".ssh", "id_ed25519"),
		"state folder":     filepath.Join(state, "glassbox", "sessions", "s.jsonl"),
		"the .env read":    filepath.Join(started, ".env"),
		"next to the ws":   filepath.Join(outside, "secret.txt"),
		"shadow passwords": "/etc/shadow",
		"ssh host keys":    "/etc/ssh",
		"root's home":      "/root",
	}
	for name, path := range forbidden {
		t.Run(name, func(t *testing.T) {
			fi, err := os.Stat(path)
			if err != nil {
				t.Skipf("%s is not on this machine", path)
			}
			read := "cat "
			if fi.IsDir() {
				read = "ls "
			}
			res := runCommand(t, ec, read+shellQuote(path))
			if !res.IsError || !strings.Contains(res.Content, "Permission denied") {
				t.Fatalf("the command could read %s: %s", path, res.Content)
			}
		})
	}

	ordinary := []struct{ command, want string }{
		{"python3 hello.py", "Hello from ws [1, 2]"},
		{"ls", "hello.py"},
		{"ls -la", "notes.txt"},
		{"cat notes.txt", "beta"},
		{"grep -n gam notes.txt", "3:gamma"},
		{"sed -n 2p notes.txt", "beta"},
		{"awk 'NR==1 {print toupper($0)}' notes.txt", "ALPHA"},
		{"wc -l < notes.txt", "3"},
		{"sort -r notes.txt | head -1", "gamma"},
		{"find . -name '*.py'", "./hello.py"},
		{"id -un", "\n"},
		{"echo hi > out.txt && cat out.txt && rm out.txt", "hi"},
		{"mkdir -p d/e && echo x > d/e/f && cat d/e/f", "x"},
		{`echo tmp > "$TMPDIR/t" && cat "$TMPDIR/t" && echo home > "$HOME/h" && cat "$HOME/h"`, "home"},
		{"python3 -c 'import subprocess; print(subprocess.run([\"echo\", \"sub\"], capture_output=True, text=True).stdout)'", "sub"},
		{"python3 -m json.tool < /dev/null; echo '{\"a\":1}' | python3 -m json.tool", `"a": 1`},
		{"bash -c 'cat <(echo fromfd)'", "fromfd"},
		{"date +%Y", "20"},
		{"env | wc -l", "\n"},
		{"git init -q repo && cd repo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m x && git log --oneline | wc -l", "1"},
		{"python3 -m venv v && ./v/bin/python -c 'print(\"venv ok\")'", "venv ok"},
		{`python3 -c 'import sqlite3; c = sqlite3.connect("x.db"); c.execute("create table t(a)"); print("sqlite ok")'`, "sqlite ok"},
		{"python3 -c 'import concurrent.futures as f; print(list(f.ThreadPoolExecutor(2).map(abs, [-7])))'", "[7]"},
	}
	for _, c := range ordinary {
		t.Run(c.command, func(t *testing.T) {
			res := runCommand(t, ec, c.command)
			if res.IsError || !strings.Contains(res.Content, c.want) {
				t.Fatalf("an ordinary command failed under the sandbox: %s", res.Content)
			}
		})
	}
}

// Item 5 (issue item 6): no device node, FIFO or setuid file can be made
// in the workspace, as root. A character device for /dev/kmsg and a block
// device for a loop disk, mkfifo, and the setuid and setgid bits by chmod,
// by creating a file with that mode and by install — all refused; nothing
// of the kind is left in the workspace.
func TestSandboxRefusesDevicesFIFOsAndSetuidFiles(t *testing.T) {
	requireRoot(t)
	requireLandlock(t)
	requireSeccomp(t)
	ws := newTestWorkspace(t, nil)
	ec := NewExecuteCommand(ws, 20*time.Second)
	attempts := []string{
		`mknod kmsgdev c 1 11 && echo '<0>glassbox escaped' > kmsgdev`,
		`mknod nulldev c 1 3`,
		`mknod loopdev b 7 0 && head -c 16 loopdev`,
		`mkfifo pipe`,
		`mknod pipe2 p`,
		`python3 -c 'import os; os.mknod("dev2", 0o20644, os.makedev(1, 11))'`,
		`cp /bin/true suid && chmod u+s suid`,
		`cp /bin/true suid2 && chmod 4755 suid2`,
		`cp /bin/true sgid && chmod g+s sgid`,
		`mkdir d && chmod 2775 d`,
		`install -m 4755 /bin/true suid3`,
		`python3 -c 'import os; os.close(os.open("suid4", os.O_CREAT | os.O_WRONLY, 0o4755))'`,
		`python3 -c 'import os; f = os.open("suid5", os.O_CREAT | os.O_WRONLY, 0o755); os.fchmod(f, 0o4755)'`,
		`python3 -c 'import os; os.close(os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o6755))'`,
		`touch suid6 && python3 -c 'import os; os.chmod("suid6", 0o104755)'`,
	}
	for _, cmd := range attempts {
		t.Run(cmd, func(t *testing.T) {
			res := runCommand(t, ec, cmd)
			if !res.IsError {
				t.Fatalf("the sandbox let it through: %s", res.Content)
			}
		})
	}
	filepath.Walk(ws.Root(), func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Mode()&(os.ModeDevice|os.ModeCharDevice|os.ModeNamedPipe|os.ModeSetuid|os.ModeSetgid) != 0 {
			t.Errorf("%s is %v", path, fi.Mode())
		}
		return nil
	})
	// Ordinary modes still work.
	if res := runCommand(t, ec, `touch f && chmod 755 f && chmod u-x,g+w f && ls -l f`); res.IsError || !strings.Contains(res.Content, "-rw-rwxr-x") {
		t.Fatalf("an ordinary chmod failed: %s", res.Content)
	}
}

// Landlock does not govern metadata: without more, a command could chmod,
// chown, touch or set attributes on any file it can name (as root: chmod
// 666 /etc/passwd). Run as root, the command sees every mount but its own
// folders read-only, so each of these is refused outside and works inside;
// glassbox's own view of the file system is untouched.
func TestSandboxRefusesMetadataChangesOutside(t *testing.T) {
	requireRoot(t)
	requireLandlock(t)
	ws := newTestWorkspace(t, map[string]string{"mine.txt": "x"})
	outside := filepath.Join(outsideDir(t, ws), "secret.txt")
	before, err := os.Stat(outside)
	if err != nil {
		t.Fatal(err)
	}
	mountsBefore, _ := os.ReadFile("/proc/self/mountinfo")
	ec := NewExecuteCommand(ws, 20*time.Second)
	for _, cmd := range []string{
		"chmod 666 " + outside,
		"chown nobody " + outside,
		"touch -m -d 2000-01-01 " + outside,
		"python3 -c 'import os; os.setxattr(" + pyQuote(outside) + ", \"user.x\", b\"1\")'",
		"python3 -c 'import os; os.utime(" + pyQuote(outside) + ", (0, 0))'",
	} {
		t.Run(cmd, func(t *testing.T) {
			res := runCommand(t, ec, cmd)
			if !res.IsError || !strings.Contains(res.Content, "Read-only file system") {
				t.Fatalf("the sandbox let it through: %s", res.Content)
			}
		})
	}
	after, err := os.Stat(outside)
	if err != nil {
		t.Fatal(err)
	}
	st, st2 := before.Sys().(*syscall.Stat_t), after.Sys().(*syscall.Stat_t)
	if after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) || st.Uid != st2.Uid {
		t.Fatalf("the file outside changed: %v %v uid %d → %v %v uid %d", before.Mode(), before.ModTime(), st.Uid, after.Mode(), after.ModTime(), st2.Uid)
	}
	res := runCommand(t, ec, `chmod 600 mine.txt && touch -d 2001-01-01 mine.txt && echo y >> mine.txt && echo t > "$TMPDIR/t" && chmod 600 "$TMPDIR/t" && ls -l mine.txt`)
	if res.IsError || !strings.Contains(res.Content, "-rw-------") {
		t.Fatalf("changing the workspace's own files: %s", res.Content)
	}
	if !strings.Contains(res.Sandbox, "read-only mounts") {
		t.Fatalf("sandbox line %q", res.Sandbox)
	}
	mountsAfter, _ := os.ReadFile("/proc/self/mountinfo")
	if string(mountsBefore) != string(mountsAfter) {
		t.Fatalf("glassbox's own mounts changed:\n%s\n---\n%s", mountsBefore, mountsAfter)
	}
	if err := os.WriteFile(outside, []byte("glassbox may"), 0o644); err != nil {
		t.Fatalf("glassbox itself can no longer write outside: %v", err)
	}
}

// A command run as root keeps only the capabilities that let it work in a
// workspace that is not its own: no module loading, raw I/O, mknod,
// network administration or file capabilities, in its effective, permitted
// and bounding sets alike.
func TestSandboxDropsRootCapabilities(t *testing.T) {
	requireRoot(t)
	ws := newTestWorkspace(t, nil)
	res := runCommand(t, NewExecuteCommand(ws, 10*time.Second), `grep -E '^Cap(Eff|Prm|Bnd|Amb|Inh):' /proc/self/status`)
	if res.IsError {
		t.Fatal(res.Content)
	}
	var want uint64
	for _, c := range keptCapabilities {
		want |= 1 << c
	}
	for _, line := range strings.Split(res.Content, "\n") {
		name, hex, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(name, "Cap") {
			continue
		}
		got, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		limit := want
		if name == "CapAmb" || name == "CapInh" {
			limit = 0
		}
		if got&^limit != 0 {
			t.Errorf("%s = %016x, more than %016x", name, got, limit)
		}
	}
}

// Item 2 (issue item 8): a command runs in its own session, so it has no
// controlling terminal: /dev/tty reaches nothing, and the session is not
// glassbox's. The session is read from outside (proctest): inside its PID
// namespace the command cannot see who leads its session.
func TestCommandHasItsOwnSessionAndNoTerminal(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	ec := NewExecuteCommand(ws, 10*time.Second)
	marker := fmt.Sprintf("2.%06d", time.Now().UnixNano()%1000000)
	done := make(chan Result, 1)
	go func() {
		res, err := ec.Run(context.Background(), []byte(`{"command":`+quote(`printf '\033]2;glassbox-pwned\007' > /dev/tty; echo "tty=$?"; sleep `+marker)+`}`))
		if err != nil {
			res = Result{Content: err.Error(), IsError: true}
		}
		done <- res
	}()
	st, err := proctest.Find(5*time.Second, "sleep", marker)
	if err != nil {
		t.Fatalf("%v; the command said: %s", err, (<-done).Content)
	}
	if err := st.Check(); err != nil {
		t.Error(err)
	}
	res := <-done
	if !strings.Contains(res.Content, "tty=1") && !strings.Contains(res.Content, "tty=2") {
		t.Fatalf("the command wrote to /dev/tty: %s", res.Content)
	}
}

// Item 6 (issue item 3): the helper is executed from the program opened at
// start. A command that replaces the file this program was started from
// (here: a copy of the test binary, started from a path in the workspace)
// cannot swap the helper: the next command still runs confined.
func TestHelperCannotBeSwapped(t *testing.T) {
	requireLandlock(t)
	// The program opened at start is the running image, whatever happens
	// to its path afterwards.
	path, err := selfPath()
	if err != nil {
		t.Fatal(err)
	}
	target, err := os.Readlink(path)
	if err != nil {
		t.Fatal(err)
	}
	exe, _ := os.Executable()
	if target != exe {
		t.Fatalf("helper %s is %s, want the running program %s", path, target, exe)
	}
	ws := newTestWorkspace(t, nil)
	outside := outsideDir(t, ws)
	ec := NewExecuteCommand(ws, 10*time.Second)
	// Even were the running program's own path in reach, replacing it
	// changes nothing: the descriptor holds the original file.
	fake := filepath.Join(ws.Root(), "fake")
	writeTestFile(t, fake, "#!/bin/sh\necho swapped > "+filepath.Join(outside, "swapped")+"\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 20; round++ {
		res := runCommand(t, ec, "echo escaped > "+shellQuote(filepath.Join(outside, "escaped")))
		if !res.IsError || !strings.HasPrefix(res.Sandbox, "on") {
			t.Fatalf("round %d: %+v", round, res)
		}
	}
	for _, f := range []string{"swapped", "escaped"} {
		if _, err := os.Stat(filepath.Join(outside, f)); err == nil {
			t.Fatalf("%s exists: the command ran outside the sandbox", f)
		}
	}
}

// Item 7: the parent-death signal is tied to the thread that forked, not
// the process. Commands started from goroutines locked to threads that end
// right afterwards (the trap of wave3-libs §5) still run to their end:
// glassbox starts every command from one thread that never ends.
func TestCommandsSurviveTheirCallersThread(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	const n = 8
	errs := make(chan error, n)
	cmds := make([]*exec.Cmd, n)
	for i := range cmds {
		cmds[i] = exec.Command("sh", "-c", fmt.Sprintf("sleep 0.3; echo done > %d.txt", i))
		cmds[i].Dir = ws.Root()
		cmds[i].SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		go func() {
			runtime.LockOSThread() // never unlocked: this thread ends with the goroutine
			errs <- startTracked(cmds[i], nil)
		}()
	}
	for range cmds {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for i, c := range cmds {
		err := c.Wait()
		untrack(c)
		if err != nil {
			t.Errorf("command %d: %v (killed when the goroutine that started it ended)", i, err)
		}
	}
}

// Item 7: the next start removes the folders commands of a dead glassbox
// left, and only those: not a folder in use (locked, or whose glassbox
// runs), not a link, not someone else's name.
func TestRemoveStaleCommandFolders(t *testing.T) {
	tmp := t.TempDir()
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	deadPID := dead.Process.Pid
	mk := func(name string) string {
		p := filepath.Join(tmp, name)
		writeTestFile(t, filepath.Join(p, "home", "f"), "x")
		return p
	}
	stale := mk(fmt.Sprintf("glassbox-cmd-%d-111", deadPID))
	lockedStale := mk(fmt.Sprintf("glassbox-cmd-%d-222", deadPID))
	lock, err := lockFolder(lockedStale)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	running := mk(fmt.Sprintf("glassbox-cmd-%d-333", os.Getppid()))
	oldStyle := mk("glassbox-cmd-444")
	other := mk("something-else-555")
	elsewhere := t.TempDir()
	writeTestFile(t, filepath.Join(elsewhere, "keep"), "keep")
	link := filepath.Join(tmp, fmt.Sprintf("glassbox-cmd-%d-666", deadPID))
	symlink(t, elsewhere, link)

	if n := removeStaleCommandFolders(tmp); n != 1 {
		t.Errorf("removed %d folders, want 1", n)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stale folder is still there (%v)", err)
	}
	for _, kept := range []string{lockedStale, running, oldStyle, other, link, filepath.Join(elsewhere, "keep")} {
		if _, err := os.Lstat(kept); err != nil {
			t.Errorf("%s was removed: %v", kept, err)
		}
	}
}

// Item 8: the sandbox line says what this kernel leaves open, in its head
// (the status bar shows the head) and in full.
func TestSandboxLineNamesWhatIsOpen(t *testing.T) {
	noSeccomp := errors.New("this kernel has no seccomp filter")
	noLandlock := errors.New("this kernel has no Landlock")
	noMounts := errNoPrivateMounts
	tests := []struct {
		name       string
		abi        int
		ll, sc, ro error
		network    bool
		head       string
		contains   []string
	}{
		{"this kernel, root", 7, nil, nil, nil, false, "on", []string{"Landlock ABI 7 + seccomp + read-only mounts + PID namespace", "sockets closed: Unix, raw, UDP, TCP", "nothing left open", "read only the workspace", "change only the first two", "they see only their own processes", "setuid files or new user namespaces", "limits: 256 processes (cgroup v1 pids.max), 1 GiB of memory (cgroup v1 memory.limit_in_bytes), 256 MiB a file, 20 s of CPU a process, no core files (rlimits)"}},
		{"network", 7, nil, nil, nil, true, "on (open: TCP, UDP)", []string{"sockets closed: Unix, raw", "left open: TCP, UDP (network allowed by the policy)"}},
		{"no mount namespace", 7, nil, nil, noMounts, false, "on (open: chmod, chown and touch outside, other processes' command lines)", []string{"Landlock ABI 7 + seccomp:", "Landlock does not govern file modes, owners and times, nor /proc", "would not give the command a read-only view"}},
		{"no seccomp", 7, nil, noSeccomp, nil, false, "on (open: Unix sockets, raw sockets, UDP, setuid files, new user namespaces)", []string{"Landlock ABI 7 + read-only mounts + PID namespace:", "sockets closed: TCP", "no seccomp filter", "no device nodes or FIFOs;"}},
		{"old Landlock", 3, nil, nil, nil, false, "on (open: TCP, signals to your other processes)", []string{"TCP rules need Landlock ABI 4", "scoping needs Landlock ABI 6"}},
		{"no Landlock", 0, noLandlock, nil, nil, false, "off", []string{"no Landlock", "seccomp filter still refuses", "limits: 256 processes"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			held := limitMechanisms{pidsCgroup: "cgroup v1 pids.max", memoryCgroup: "cgroup v1 memory.limit_in_bytes"}
			line := sandboxLine(reach{abi: tt.abi, landlock: tt.ll, seccomp: tt.sc, readOnly: tt.ro, network: tt.network, limits: CommandLimits(), held: held})
			head, _, ok := strings.Cut(line, " — ")
			if !ok || head != tt.head {
				t.Errorf("head %q, want %q (line %q)", head, tt.head, line)
			}
			for _, c := range tt.contains {
				if !strings.Contains(line, c) {
					t.Errorf("%q lacks %q", line, c)
				}
			}
		})
	}
	requireLandlock(t)
	requireSeccomp(t)
	if s := SandboxStatus(); !strings.HasPrefix(s, "on — Landlock ABI") || !strings.Contains(s, "nothing left open") {
		t.Errorf("SandboxStatus() = %q", s)
	}
	res := runCommand(t, NewExecuteCommand(newTestWorkspace(t, nil), 10*time.Second), "true")
	if res.Sandbox != SandboxStatus() {
		t.Errorf("a command's line %q differs from the status %q", res.Sandbox, SandboxStatus())
	}
}

// BenchmarkSandboxedCommand measures one `true` through the whole path: a
// temporary folder, the helper, the confining stage (capabilities,
// Landlock, seccomp) and the shell.
func BenchmarkSandboxedCommand(b *testing.B) {
	dir := b.TempDir()
	ws, err := NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	ec := NewExecuteCommand(ws, 10*time.Second)
	for b.Loop() {
		res, err := ec.Run(b.Context(), []byte(`{"command":"true"}`))
		if err != nil || res.IsError {
			b.Fatalf("%v %+v", err, res)
		}
	}
}

// Not run as root, the helper gives the command its read-only view inside
// a user namespace that maps only its own user: the command runs as that
// user (not root), with no capability, under Landlock and seccomp, and a
// chmod outside is refused like a write. The helper is started here as
// nobody (uid 65534), as glassbox would start it.
func TestSandboxAsAnotherUser(t *testing.T) {
	requireRoot(t)
	requireLandlock(t)
	requireSeccomp(t)
	base := t.TempDir()
	for _, d := range []string{filepath.Dir(base), base} { // t.TempDir makes both private
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, tmp, outside := filepath.Join(base, "ws"), filepath.Join(base, "glassbox-cmd-1-1"), filepath.Join(base, "outside")
	for _, d := range []string{ws, tmp, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(outside, "mine.txt"), "x")
	for _, p := range []string{ws, tmp, outside, filepath.Join(outside, "mine.txt")} {
		if err := os.Chown(p, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	// A copy of this program nobody may run (go test's own is private).
	self, err := os.ReadFile("/proc/self/exe")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(base, "glassbox")
	if err := os.WriteFile(path, self, 0o755); err != nil {
		t.Fatal(err)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	command := `echo in > in.txt && cat in.txt; echo out > ` + outside + `/new.txt; chmod 600 ` + outside + `/mine.txt && echo chmod-ok; python3 -c 'import socket; socket.socket(socket.AF_UNIX)'; echo "uid=$(id -u)"; grep CapEff /proc/self/status`
	jobR, err := sendJob(sandboxJob{Workspace: ws, Temp: tmp, Shell: command, Limits: CommandLimits()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, SandboxArg)
	cmd.Args[0] = "glassbox"
	cmd.Dir = ws
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + tmp, "TMPDIR=" + tmp}
	cmd.ExtraFiles = []*os.File{statusW, jobR}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}, Setsid: true}
	out, err := cmd.CombinedOutput()
	statusW.Close()
	st, ok := readHelperReports(statusR, nil)
	if !ok || st.Error != "" || st.Started {
		t.Fatalf("helper as nobody: %v %s\nreport %+v", err, out, st)
	}
	if !strings.HasPrefix(st.Sandbox, "on — Landlock ABI") || !strings.Contains(st.Sandbox, "+ read-only mounts") {
		t.Fatalf("sandbox line as nobody: %q", st.Sandbox)
	}
	for _, want := range []string{"in\n", "new.txt: Read-only file system", "mine.txt': Read-only file system", "Operation not permitted", "uid=65534\n", "CapEff:\t0000000000000000"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "chmod-ok") {
		t.Errorf("a chmod outside the workspace went through:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Error("a write outside the workspace went through")
	}
}

// The confining stage remounts only a namespace of its own: told it has
// one while it shares the helper's (here: the test's), it touches no mount,
// runs nothing, and says so with no_mounts, which makes the helper start it
// again without one.
func TestConfiningStageNeverRemountsTheMachine(t *testing.T) {
	ws := newTestWorkspace(t, nil)
	marker := filepath.Join(ws.Root(), "ran")
	mountsBefore, _ := os.ReadFile("/proc/self/mountinfo")
	path, err := selfPath()
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	jobR, err := sendJob(sandboxJob{Workspace: ws.Root(), Temp: t.TempDir(), Mounts: privateMountsArg + "=" + mountNamespace(), Shell: "touch " + marker, Limits: CommandLimits()})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(path, confineArg)
	cmd.ExtraFiles = []*os.File{w, jobR}
	err = cmd.Run()
	w.Close()
	report, _ := io.ReadAll(r)
	var st helperStatus
	if json.Unmarshal(report, &st) != nil || !st.NoMounts || !strings.Contains(st.Error, "not in a mount namespace of its own") {
		t.Fatalf("stage: %v, report %s", err, report)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the command ran")
	}
	if mountsAfter, _ := os.ReadFile("/proc/self/mountinfo"); string(mountsAfter) != string(mountsBefore) {
		t.Fatalf("the machine's mounts changed:\n%s\n---\n%s", mountsBefore, mountsAfter)
	}
}

// Issue item 5 / brief item 4: the .env glassbox read is out of a command's
// reach even when it lies inside the workspace (glassbox run from the
// project folder with --workspace .): the command finds an empty file it
// can neither change, move, remove nor copy anything out of, however it
// names it; glassbox still sees the file as it was. Run as root and (below)
// as another user.
func TestConcealedFileInsideTheWorkspace(t *testing.T) {
	requireLandlock(t)
	ws := newTestWorkspace(t, map[string]string{".env": "GEMINI_API_KEY=AIzaSyCONCEALED-marker\n", "notes.txt": "visible\n"})
	dotenv := filepath.Join(ws.Root(), ".env")
	ec := NewExecuteCommand(ws, 20*time.Second)
	ec.Conceal([]string{dotenv})
	for _, cmd := range []string{
		"cat .env", "cat ./.env " + dotenv, "cp .env copy && cat copy", "cat /proc/self/cwd/.env", "sh -c 'cd .. && cat ws/.env'",
		"python3 -c 'print(open(\".env\").read())'", "grep -r CONCEALED .", "tar cf - . | strings",
		"mv .env moved", "rm -f .env", "echo x > .env", "ln .env hard", "chmod 644 .env",
	} {
		t.Run(cmd, func(t *testing.T) {
			res := runCommand(t, ec, cmd)
			if strings.Contains(res.Content, "CONCEALED") {
				t.Fatalf("the command read the concealed file: %s", res.Content)
			}
		})
	}
	if b, err := os.ReadFile(dotenv); err != nil || string(b) != "GEMINI_API_KEY=AIzaSyCONCEALED-marker\n" {
		t.Fatalf("glassbox's own .env changed: %q %v", b, err)
	}
	if res := runCommand(t, ec, "cat notes.txt"); !strings.Contains(res.Content, "visible") {
		t.Fatalf("the rest of the workspace: %s", res.Content)
	}
}
