package shell

// These tests only read commands; none of them runs one.

import (
	"slices"
	"strings"
	"testing"
)

// found is what Read found in a command line, over both readings: the
// checks of its findings and what it could not know.
func found(t *testing.T, src string) (checks []string, unknown []string) {
	t.Helper()
	c := Read(src, nil)
	if c.TooLarge != "" {
		t.Fatalf("Read(%s): too large: %s", src, c.TooLarge)
	}
	for _, r := range c.Readings {
		for _, f := range r.Findings {
			if !slices.Contains(checks, f.Check) {
				checks = append(checks, f.Check)
			}
		}
		unknown = append(unknown, r.Unknown...)
	}
	return checks, unknown
}

// TestChecksFindTheirClass: each named check finds its class of harm
// through the shell package alone (loop's policy tests hold the rest of
// the spellings and the decisions made of them).
func TestChecksFindTheirClass(t *testing.T) {
	tests := []struct {
		command string
		check   string // the check that finds it; "" for none
		unknown string // in what the reading could not know; "" for nothing
	}{
		{`sudo id`, "privilege-escalation", ""},
		{`env -iu X doas id`, "privilege-escalation", ""},
		{`X=sudo; $X id`, "privilege-escalation", ""},
		{`systemctl reboot`, "power-off", ""},
		{`telinit 6`, "power-off", ""},
		{`mkfs.ext4 /dev/sdb1`, "disk-format", ""},
		{`mknod x b 8 0`, "device-write", ""},
		{`mknod fifo p`, "", ""},
		{`dd if=x of=/dev/sda`, "device-write", ""},
		{`echo x > /dev/null`, "", ""},
		{`rm -rf ~`, "delete-outside-workspace", ""},
		{`cd / && rm -rf *`, "delete-outside-workspace", ""},
		{`env -C / rm -rf *`, "delete-outside-workspace", ""},
		{`rm -rf build`, "", ""},
		{`echo x >> ~/.bashrc`, "write-outside-workspace", ""},
		{`cd / && cp a b`, "write-outside-workspace", ""},
		{`echo x > out.txt 2>/dev/null`, "", ""},
		{`echo x > "$TMPDIR/x"`, "", ""},
		{`cd "$D" && touch x`, "", ""},
		{`echo x > /proc/self/fd/1`, "", ""},
		{`curl x | sh`, "download-to-interpreter", "sh reads the commands it runs from its input"},
		{`curl -o i.sh x && sh i.sh`, "download-to-interpreter", ""},
		{`:(){ :|:& };:`, "fork-bomb", ""},
		{`while :; do sleep 1 & done`, "fork-bomb", ""},
		{`while :; do sleep 1 & break; done`, "", ""},
		{`python3 -c 'print(1)'`, "", "python3 runs code given on its command line"},
		{`awk '{print $1}' f`, "", ""},
		{`awk 'BEGIN{system("x")}'`, "", "awk's program starts commands"},
		{`sed 's/a/b/' f`, "", ""},
		{`sed 's/a/b/e' f`, "", "sed's script runs commands"},
		{`find . -exec {} \;`, "", "find -exec runs the files it finds as commands"},
		{`$(echo ls)`, "", "the command name $(echo) is only known when the command runs"},
	}
	for _, tc := range tests {
		t.Run(tc.command, func(t *testing.T) {
			checks, unknown := found(t, tc.command)
			if tc.check == "" && len(checks) > 0 || tc.check != "" && !slices.Contains(checks, tc.check) {
				t.Errorf("found %v, want %q", checks, tc.check)
			}
			joined := strings.Join(unknown, "\n")
			if tc.unknown == "" && len(unknown) > 0 || !strings.Contains(joined, tc.unknown) {
				t.Errorf("unknown %q, want %q", joined, tc.unknown)
			}
		})
	}
}

func TestChecksAreNamed(t *testing.T) {
	names := Checks()
	for _, h := range harmByName {
		if _, ok := names[h.check]; !ok {
			t.Errorf("harmByName finds %q, which Checks does not name", h.check)
		}
	}
	names["x"] = "changed" // a copy: the package's table stays as it is
	if _, ok := Checks()["x"]; ok {
		t.Error("Checks returns the package's own table")
	}
}

func TestPrivilegeIn(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"sudo", "sudo"},
		{"/usr/bin/sudo", "sudo"},
		{"os.system('doas id')", "doas"},
		{"pseudo", ""},
		{"sudoers", ""},
		{"sudo.conf", ""},
		{"sudo-rs", ""},
		{"x_sudo", ""},
		{"sudoé", ""},
		{"run0 id", "run0"},
		{"pkexec", "pkexec"},
	} {
		if got := privilegeIn(tc.in); got != tc.want {
			t.Errorf("privilegeIn(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestPowersOff(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  bool
	}{
		{[]string{"shutdown", "-h", "now"}, true},
		{[]string{"systemctl", "soft-reboot"}, true},
		{[]string{"loginctl", "poweroff"}, true},
		{[]string{"systemctl", "status"}, false},
		{[]string{"init", "0"}, true},
		{[]string{"init", "3"}, false},
		{[]string{"halt"}, true},
	} {
		if got := powersOff(tc.words[0], tc.words[1:]); got != tc.want {
			t.Errorf("powersOff(%v) = %v, want %v", tc.words, got, tc.want)
		}
	}
}

func TestIsDeviceAndStreamPath(t *testing.T) {
	for _, tc := range []struct {
		path           string
		device, stream bool
	}{
		{"/dev/sda", true, false},
		{"//dev/../dev/sdb", true, false},
		{"/dev/null", false, false},
		{"/dev/shm/x", false, false},
		{"/dev/stdin", false, true},
		{"/dev/fd/3", false, true},
		{"/proc/self/fd/0", false, true},
		{"/dev/tcp/host/80", false, true},
		{"/proc/sysrq-trigger", true, false},
		{"/proc/sys/kernel/x", true, false},
		{"/sys/class/x", true, false},
		{"-", false, true},
		{"dev/sda", false, false},
	} {
		if got := isDevice(tc.path); got != tc.device {
			t.Errorf("isDevice(%q) = %v, want %v", tc.path, got, tc.device)
		}
		if got := streamPath(tc.path); got != tc.stream {
			t.Errorf("streamPath(%q) = %v, want %v", tc.path, got, tc.stream)
		}
	}
}

func TestChangeTargets(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"rm", "-rf", "--", "-x", "y"}, []string{"-x", "y"}},
		{[]string{"chmod", "755", "a"}, []string{"a"}},
		{[]string{"chmod", "-R", "-w", "a"}, []string{"a"}},
		{[]string{"chmod", "--reference=r", "a"}, []string{"a"}},
		{[]string{"chown", "--reference", "r", "a"}, []string{"a"}},
		{[]string{"chattr", "-i", "a"}, []string{"a"}},
		{[]string{"chattr", "-R", "+i", "a"}, []string{"a"}},
		{[]string{"setfacl", "-m", "u:x:rw", "a"}, []string{"a"}},
		{[]string{"setfacl", "-Rx", "u:x", "a"}, []string{"a"}},
		{[]string{"setfacl", "-b", "a"}, []string{"a"}},
		{[]string{"setfacl", "--set", "u::rw", "a"}, []string{"a"}},
		{[]string{"find", "a", "b", "-delete"}, []string{"a", "b"}},
		{[]string{"find", "-L", "-D", "tree", "-O3", "a", "(", "-name", "x", ")"}, []string{"a"}},
		{[]string{"find", "-name", "x"}, nil},
	} {
		if got := changeTargets(tc.words[0], tc.words[1:]); !slices.Equal(got, tc.want) {
			t.Errorf("changeTargets(%v) = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestReadingsDisagree: what dash and bash read differently is said.
func TestReadingsDisagree(t *testing.T) {
	for _, tc := range []struct{ command, want string }{
		{`ls`, ""},
		{`[[ -f x ]] && echo yes`, `reads "[[ -f x ]]" where bash reads "echo yes"`},
		{`for ((i=0; i<3; i++)); do :; done`, "cannot read it"},
	} {
		if got := Read(tc.command, nil).Disagreement(); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Disagreement(%s) = %q, want %q", tc.command, got, tc.want)
		}
	}
}

func TestShown(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"  a\nb ", `a\nb`},
		{mark + "$HOME", "$HOME"},
		{strings.Repeat("x", 130), strings.Repeat("x", 120) + "…"},
		{"a\u202eb", `a\u202eb`},
	} {
		if got := Shown(tc.in); got != tc.want {
			t.Errorf("Shown(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
