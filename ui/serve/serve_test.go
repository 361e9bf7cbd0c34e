package serve

import (
	"testing"

)

// A learner with the passphrase gets a glass box and steps a lesson in it.
func TestPasswordLoginSteppsALesson(t *testing.T) {
	r := newRoom(t, Options{})
	a := r.learn("ada")
	a.waitFor("Enter: send the tour lesson")
	a.waitFor("OFFLINE")
	a.keys("\r")
	a.waitFor("press space to take it")
	a.keys("c")
	a.waitFor("answer delivered to ui")
}
