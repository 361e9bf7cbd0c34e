package serve

import (
	"context"
	"io"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/glassbox"
)

// glassbox --broadcast: a plain glass box, with a session of its own, is
// followed. The room holds followers only; how to follow (passphrase,
// fingerprint) is printed and in History; its status bar counts followers;
// a follower over SSH sees the steps; a follower too far behind would be
// resynchronised from the glass box's own session file.
func TestBroadcastFromAPlainGlassBox(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	c := agentrun.Defaults(false)
	c.Offline, c.SimLatency = true, 0
	c.Session = filepath.Join(t.TempDir(), "mine.jsonl")
	person := glassbox.NewPerson()
	runs, err := agentrun.OpenAll(context.Background(), c, func(string) loop.Person { return person })
	if err != nil {
		t.Fatal(err)
	}
	defer agentrun.CloseAll(runs)
	cfg, err := glassbox.ConfigFor("tour", runs, map[string]*glassbox.Person{"": person})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	b, stop, err := Broadcasting(&cfg, Options{Addr: "127.0.0.1:0", FollowOnly: true, StateDir: filepath.Join(state, "glassbox"), Run: c}, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	m := regexp.MustCompile(`broadcasting on (\S+) \(up to 100 followers\)[\s\S]*workshop passphrase:\s+(\S+)\n[\s\S]*glassbox follow HOST:\d+ --fingerprint (SHA256:\S+)\n`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("the broadcast did not say how to follow it:\n%s", out.String())
	}
	addr, pass, fp := m[1], m[2], m[3]
	if strings.Contains(out.String(), "learners connect with") {
		t.Fatalf("a broadcast offers glass boxes of its own:\n%s", out.String())
	}
	notes := strings.Join(cfg.Runs[0].Notes, "\n")
	for _, want := range []string{"workshop passphrase: " + pass, "host key fingerprint: " + fp, "your run is broadcast"} {
		if !strings.Contains(notes, want) {
			t.Fatalf("History's notes lack %q:\n%s", want, notes)
		}
	}
	r := &room{t: t, addr: addr, opts: Options{Passphrase: pass}}

	// Only followers get in.
	ada, err := r.dial("ada", gossh.Password(pass))
	if err != nil {
		t.Fatal(err)
	}
	tm := openTerminal(t, ada, 120, 34)
	tm.waitFor("this is a broadcast to follow")
	tm.waitEnd()

	b.resyncAfter = 5
	lagging, _ := b.Follow() // reads nothing until the run is over
	defer lagging.Close()
	f := r.learn(FollowUser)
	f.waitFor("FOLLOWING the instructor")
	if k, v := cfg.Status(); k != "followers" || v != "2" {
		t.Fatalf("status segment %q %q, want followers 2", k, v)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := tea.NewProgram(glassbox.NewServed(ctx, cfg), tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithoutSignalHandler(), tea.WithContext(ctx))
	done := make(chan struct{})
	go func() { p.Run(); close(done) }()
	p.Send(tea.WindowSizeMsg{Width: 120, Height: 34})
	p.Send(tea.KeyMsg{Type: tea.KeyEnter})
	p.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'c'}})
	f.waitFor("answer delivered to ui")
	p.Quit()
	<-done
	// The follower that read nothing is resynchronised from this glass
	// box's own session file.
	if got, ok := lagging.Next(context.Background()); !ok || len(got.Transitions) != 14 || !strings.Contains(got.Note, "resynchronised from their session file") {
		t.Fatalf("the lagging follower: %d steps, note %q", len(got.Transitions), got.Note)
	}

	// glassbox follow joins late: it starts with every step so far.
	fw, err := Dial(context.Background(), FollowOptions{Addr: addr, Fingerprint: fp, Passphrase: func() (string, error) { return pass, nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer fw.Close()
	if len(fw.Past) != 14 {
		t.Fatalf("a follower joining late starts with %d steps, want the tour's 14", len(fw.Past))
	}
}

// A broadcast follows one run: compare mode is refused with a message.
func TestBroadcastRefusesCompare(t *testing.T) {
	cfg := glassbox.Config{Runs: []glassbox.RunConfig{{Name: "gemini"}, {Name: "llama"}}}
	_, _, err := Broadcasting(&cfg, Options{Addr: "127.0.0.1:0", FollowOnly: true, StateDir: t.TempDir()}, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "does not go with --compare") {
		t.Fatalf("err %v", err)
	}
}

// Ending a broadcast tells every follower before the room closes: a
// stream ends with its end frame, not with a cut connection.
func TestEndingABroadcastTellsTheFollowers(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	cfg := glassbox.Config{Runs: []glassbox.RunConfig{{Banner: "mine", Backend: "offline"}}}
	var out strings.Builder
	_, stop, err := Broadcasting(&cfg, Options{Addr: "127.0.0.1:0", FollowOnly: true, StateDir: filepath.Join(state, "glassbox"), Passphrase: "p"}, &out)
	if err != nil {
		t.Fatal(err)
	}
	addr := regexp.MustCompile(`broadcasting on (\S+) `).FindStringSubmatch(out.String())[1]
	fp := regexp.MustCompile(`fingerprint (SHA256:\S+)`).FindStringSubmatch(out.String())[1]
	var followers []*Followed
	for range 3 {
		f, err := Dial(context.Background(), FollowOptions{Addr: addr, Fingerprint: fp, Passphrase: func() (string, error) { return "p", nil }})
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		followers = append(followers, f)
	}
	stop()
	for i, f := range followers {
		if got, ok := f.Next(context.Background()); ok || got.Note != "" {
			t.Fatalf("follower %d: ok %v, note %q; want the end of the run, not a cut connection", i, ok, got.Note)
		}
	}
}
