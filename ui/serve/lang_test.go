package serve

import (
	"net"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/glassbox-dev/glassbox/loop/agentrun"
	"github.com/glassbox-dev/glassbox/ui/lang"
)

func TestLearnerLang(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		room lang.Lang
		want lang.Lang
	}{
		{nil, lang.EN, lang.EN},
		{nil, lang.JA, lang.JA},
		{[]string{"TERM=xterm"}, lang.JA, lang.JA},
		{[]string{"LANG=ja_JP.UTF-8"}, lang.EN, lang.JA},
		{[]string{"LC_ALL=ja_JP.UTF-8", "LANG=en_US.UTF-8"}, lang.EN, lang.JA},
		{[]string{"LANG=en_US.UTF-8"}, lang.JA, lang.EN},
		{[]string{"LC_MESSAGES=C", "LANG=ja_JP.UTF-8"}, lang.JA, lang.EN},
	} {
		if got := learnerLang(tc.env, tc.room); got != tc.want {
			t.Errorf("learnerLang(%q, %s) = %s, want %s", tc.env, tc.room, got, tc.want)
		}
	}
}

// learnIn connects as user with the passphrase and opens a terminal that
// sends env first (ssh's SendEnv).
func (r *room) learnIn(user string, env ...string) *terminal {
	r.t.Helper()
	c, err := r.dial(user, gossh.Password(r.opts.Passphrase))
	if err != nil {
		r.t.Fatalf("%s: %v", user, err)
	}
	return openTerminal(r.t, c, 120, 34, env...)
}

// A learner whose ssh sends LANG=ja_JP.UTF-8 reads the room in Japanese;
// one whose ssh sends no locale reads the room's language.
func TestLearnerLanguageComesFromTheirSSHSession(t *testing.T) {
	for _, room := range []lang.Lang{lang.EN, lang.JA} {
		t.Run("room "+room.String(), func(t *testing.T) {
			run := agentrun.Defaults(false)
			run.Offline, run.SimLatency, run.Lang = true, 0, room.String()
			r := newRoom(t, Options{MaxPaste: 16, Run: run})
			ja := r.learnIn("ada", "LANG=ja_JP.UTF-8")
			plain := r.learnIn("bob")
			for _, tm := range []*terminal{ja, plain} {
				tm.waitFor("Enter")
				tm.keys("\x1b[200~" + strings.Repeat("x", 40) + "\x1b[201~")
			}
			ja.waitFor("貼り付けを断りました: 40 バイトで、この部屋の上限 16 を超えています")
			if room == lang.JA {
				plain.waitFor("貼り付けを断りました: 40 バイトで")
			} else {
				plain.waitFor("paste refused: 40 bytes, over the room's limit of 16")
			}
		})
	}
}

// An ssh follower whose ssh sends a Japanese locale reads the follower's
// glass box in Japanese, its status bar too.
func TestSSHFollowerInJapanese(t *testing.T) {
	r, b, tour := broadcastRoom(t)
	b.Publish(tour[0])
	f := r.learnIn(FollowUser, "LANG=ja_JP.UTF-8")
	f.waitFor("FOLLOWING 講師")
	f.waitFor("状態 ")
}

// The room's refusals are said in the learner's language too.
func TestRoomFullInJapanese(t *testing.T) {
	r := newRoom(t, Options{MaxLearners: 1})
	r.learnIn("a").waitFor("Enter")
	third := r.learnIn("c", "LANG=ja_JP.UTF-8")
	third.waitFor("部屋が満員です(上限の 1 人が接続中)")
	third.waitEnd()
	again := r.learnIn("d", "LC_ALL=ja_JP.UTF-8")
	again.waitFor("部屋が満員です")
	again.waitEnd()
}

// The banner the instructor reads out, in the room's language: the
// address, the passphrase and the fingerprint as they are.
func TestAnnounceInJapanese(t *testing.T) {
	run := agentrun.Defaults(false)
	run.Offline, run.SimLatency, run.Lang = true, 0, "ja"
	// Announce needs no listener (a room that is served and closed at
	// once can lose its Close to Serve's start).
	srv, err := New(Options{StateDir: t.TempDir(), Passphrase: "open-sesame", Run: run})
	if err != nil {
		t.Fatal(err)
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 2222}
	var b strings.Builder
	srv.Announce(&b, addr)
	out := b.String()
	for _, want := range []string{"で待ち受け中(受講者は最大 50 人)", "  ワークショップの合言葉:        open-sesame\n", "  ホスト鍵のフィンガープリント:  " + srv.Fingerprint() + "\n", "  受講者の接続方法:              ssh -p", "Ctrl-C で終了します"} {
		if !strings.Contains(out, want) {
			t.Errorf("the banner lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "listening on") || strings.Contains(out, "workshop passphrase") {
		t.Errorf("English left in the Japanese banner:\n%s", out)
	}
	srv.lang = lang.EN
	b.Reset()
	srv.Announce(&b, addr)
	if !strings.Contains(b.String(), "  workshop passphrase:    open-sesame\n") {
		t.Errorf("the English banner changed:\n%s", b.String())
	}
}

// The idle limit ends a Japanese learner's connection in Japanese.
func TestIdleDisconnectInJapanese(t *testing.T) {
	r := newRoom(t, Options{Idle: 300 * time.Millisecond})
	a := r.learnIn("ada", "LANG=ja_JP.UTF-8")
	a.waitFor("300ms キー入力がなかったため切断しました。セッションは保存されています。もう一度接続すると続きから始められます。")
	a.waitEnd()
}
