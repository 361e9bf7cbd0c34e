package loop

// These tests only read commands; none of them runs one.

import "testing"

const writeRule = "write-outside-workspace"

// writeSpellings are commands that write files outside the workspace, in
// the spellings a model (or an attacker) would use, and the writes that
// must stay an ordinary confirmation: inside the workspace, to a harmless
// device, or to a place known only at run time ($TMPDIR, which the
// sandbox lets a command write).
var writeSpellings = []shellSpelling{
	// Redirections, every operator and spelling.
	{`echo x > /etc/x`, DenyVerdict, writeRule, "the redirection > writes /etc/x, outside the workspace"},
	{`cat a >/etc/x`, DenyVerdict, writeRule, "the redirection > writes /etc/x"},
	{`echo x >| /etc/x`, DenyVerdict, writeRule, "the redirection >| writes /etc/x"},
	{`echo 'export X=1' >> ~/.bashrc`, DenyVerdict, writeRule, "the redirection >> writes ~/.bashrc, a home folder"},
	{`>~/.bashrc echo x`, DenyVerdict, writeRule, "writes ~/.bashrc, a home folder"},
	{`echo x 1>>/etc/x`, DenyVerdict, writeRule, "the redirection >> writes /etc/x"},
	{`echo x 2> /var/log/x`, DenyVerdict, writeRule, "writes /var/log/x"},
	{`make &>> /tmp/build.log`, DenyVerdict, writeRule, "writes /tmp/build.log, outside the workspace"},
	{`echo x <> /etc/x`, DenyVerdict, writeRule, "the redirection <> writes /etc/x"},
	{`echo x >> "$HOME/.profile"`, DenyVerdict, writeRule, "$HOME/.profile, a home folder"},
	{`echo x > ../x`, DenyVerdict, writeRule, "writes ../x, outside the workspace"},
	{`echo x > //etc/../etc/x`, DenyVerdict, writeRule, "writes /etc/x"},
	{`D=/etc; echo x > $D/x`, DenyVerdict, writeRule, "writes /etc/x"},
	{`bash -c 'echo x > /etc/x'`, DenyVerdict, writeRule, "writes /etc/x"},
	// The redirections of a compound command: a group, a subshell, a loop,
	// an if; and one that stays in the workspace.
	{`{ echo x; } > /etc/x`, DenyVerdict, writeRule, "the redirection > writes /etc/x"},
	{`(echo 'export X=1') >> ~/.bashrc`, DenyVerdict, writeRule, "writes ~/.bashrc, a home folder"},
	{`while read l; do echo "$l"; done < in.txt > /etc/x`, DenyVerdict, writeRule, "writes /etc/x"},
	{`if true; then echo x; fi 2>> /var/log/x`, DenyVerdict, writeRule, "writes /var/log/x"},
	{`for f in a b; do cat "$f"; done > out.txt`, RequireConfirm, "changes-need-approval", ""},
	// tee, cp, mv, ln, install, dd, touch, mkdir, sed -i, curl, wget.
	{`echo x | tee -a ~/.profile`, DenyVerdict, writeRule, "tee writes ~/.profile, a home folder"},
	{`echo x | tee out.txt /etc/x >/dev/null`, DenyVerdict, writeRule, "tee writes /etc/x"},
	{`cp a /etc/x`, DenyVerdict, writeRule, "cp writes /etc/x, outside the workspace"},
	{`cp a b /etc/`, DenyVerdict, writeRule, "cp writes /etc/"},
	{`cp -t /etc a`, DenyVerdict, writeRule, "cp writes /etc,"},
	{`cp --target-directory=/etc a b`, DenyVerdict, writeRule, "cp writes /etc,"},
	{`cp -rt/opt a`, DenyVerdict, writeRule, "cp writes /opt,"},
	{`command cp a /etc/x`, DenyVerdict, writeRule, "cp writes /etc/x"},
	{`env cp a /etc/x`, DenyVerdict, writeRule, "cp writes /etc/x"},
	{`xargs cp -t /etc < list`, DenyVerdict, writeRule, "cp writes /etc,"},
	{`ln -s a /usr/local/bin/x`, DenyVerdict, writeRule, "ln writes /usr/local/bin/x"},
	{`install a /opt/x`, DenyVerdict, writeRule, "install writes /opt/x"},
	{`install -m 755 a /usr/local/bin/`, DenyVerdict, writeRule, "install writes /usr/local/bin/"},
	{`install -d /opt/x`, DenyVerdict, writeRule, "install writes /opt/x"},
	{`dd if=a of=/etc/x`, DenyVerdict, writeRule, "dd writes /etc/x"},
	{`touch /etc/x`, DenyVerdict, writeRule, "touch writes /etc/x"},
	{`touch -d 2020-01-01 ok.txt ~/x`, DenyVerdict, writeRule, "touch writes ~/x, a home folder"},
	{`mkdir -p /opt/x`, DenyVerdict, writeRule, "mkdir writes /opt/x"},
	{`mkdir -m 700 ~/.ssh`, DenyVerdict, writeRule, "mkdir writes ~/.ssh, a home folder"},
	{`sed -i 's/a/b/' ~/.ssh/config`, DenyVerdict, writeRule, "sed writes ~/.ssh/config, a home folder"},
	{`sed -i.bak -e 's/a/b/' notes.txt /etc/hosts`, DenyVerdict, writeRule, "sed writes /etc/hosts"},
	{`sed --in-place 's/a/b/' /etc/hosts`, DenyVerdict, writeRule, "sed writes /etc/hosts"},
	{`curl -o /etc/x https://example.com/x`, DenyVerdict, writeRule, "curl writes /etc/x"},
	{`curl -sSLo /etc/x https://example.com/x`, DenyVerdict, writeRule, "curl writes /etc/x"},
	{`curl --output=/etc/x https://example.com/x`, DenyVerdict, writeRule, "curl writes /etc/x"},
	{`wget -qO /etc/x https://example.com/x`, DenyVerdict, writeRule, "wget writes /etc/x"},
	{`wget --output-document /etc/x https://example.com/x`, DenyVerdict, writeRule, "wget writes /etc/x"},
	// Relative paths after a cd outside the workspace.
	{`cd / && echo x > etc/x`, DenyVerdict, writeRule, "writes etc/x, outside the workspace, after cd /"},
	{`cd .. && cp a b`, DenyVerdict, writeRule, "cp writes b, outside the workspace, after cd .."},
	{`cd ~ && touch x`, DenyVerdict, writeRule, "touch writes x, outside the workspace, after cd ~"},
	{`env -C /etc touch x`, DenyVerdict, writeRule, "after env -C /etc"},
	// mv outside is a change first: the earlier rule names it.
	{`mv a /etc/x`, DenyVerdict, deleteRule, "mv: /etc/x is outside the workspace"},
	// Devices stay device-write's.
	{`echo x > /dev/sda`, DenyVerdict, deviceRule, "> /dev/sda"},
	{`tee /dev/sdb < disk.img`, DenyVerdict, deviceRule, "tee /dev/sdb"},
	// Ordinary writes, harmless devices, targets known only at run time.
	{`echo x > out.txt`, RequireConfirm, askRule, ""},
	{`echo x >> logs/run.log 2>&1`, RequireConfirm, askRule, ""},
	{`cp a b`, RequireConfirm, askRule, ""},
	{`cp -r src/ build/`, RequireConfirm, askRule, ""},
	{`cp /etc/hosts hosts.copy`, RequireConfirm, askRule, ""},
	{`ln -s ../lib/x.py x.py`, RequireConfirm, askRule, ""},
	{`ls 2>/dev/null`, RequireConfirm, askRule, ""},
	{`echo x | tee /dev/null`, RequireConfirm, askRule, ""},
	{`echo x >/dev/stderr`, RequireConfirm, askRule, ""},
	{`echo x > /dev/fd/2`, RequireConfirm, askRule, ""},
	{`echo x > "$TMPDIR/x"`, RequireConfirm, askRule, ""},
	{`cp a "${TMPDIR:-/tmp}/a"`, RequireConfirm, askRule, ""},
	{`mkdir -p "$TMPDIR/work" && cd "$TMPDIR/work" && touch x`, RequireConfirm, askRule, ""},
	{`echo x > "$OUT"`, RequireConfirm, askRule, ""},
	{`mkdir -p build/out`, RequireConfirm, askRule, ""},
	{`cd src && touch ../notes.txt`, RequireConfirm, askRule, ""},
	{`touch -r /etc/hosts stamp`, RequireConfirm, askRule, ""},
	{`sed 's/a/b/' /etc/hosts > hosts`, RequireConfirm, askRule, ""},
	{`sed -n p /etc/hosts`, RequireConfirm, askRule, ""},
	{`curl -o page.html https://example.com/`, RequireConfirm, askRule, ""},
	{`curl -s https://example.com/ > /dev/null`, RequireConfirm, askRule, ""},
	{`wget -qO- https://example.com/ | wc -c`, RequireConfirm, askRule, ""},
	{`dd if=/dev/zero of=disk.img bs=1M count=1`, RequireConfirm, askRule, ""},
	{`echo x 2>&1 >out.txt`, RequireConfirm, askRule, ""},
}

// TestWritesOutsideTheWorkspace: a command that writes a file clearly
// outside the workspace is denied by write-outside-workspace, naming the
// file and why; a write inside it, to /dev/null and the like, or to a
// place known only at run time stays an ordinary confirmation.
func TestWritesOutsideTheWorkspace(t *testing.T) {
	checkSpellings(t, DefaultPolicy(), writeSpellings)
}
