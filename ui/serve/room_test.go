package serve

import (
	"context"
	"testing"
)

// The instructor's roster and status bar count the followers once, the
// same way: one following over ssh as follow@ and one with glassbox
// follow are two in both.
func TestRosterAndStatusBarCountFollowersAlike(t *testing.T) {
	r, b, _ := broadcastRoom(t)
	r.learn(FollowUser).waitFor("FOLLOWING the instructor")
	asked := 0
	f, err := Dial(context.Background(), r.followOptions(t, &asked))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	waitUntil(t, "two followers", func() bool { return b.Followers() == 2 })
	if got := r.srv.Roster().Following; got != b.Followers() {
		t.Fatalf("the roster says %d following, the status bar %d", got, b.Followers())
	}
}
