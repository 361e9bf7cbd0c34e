package tap

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"

	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/providers"
)

// job is one half of a call for the recorder, which turns the calls into
// steps one at a time, in the order they arrived: the request as it
// arrives, the reply once it is read, a call the agent gave up on while it
// was held, a call to a path no family serves.
type job struct {
	call *call
	// request half: what the agent sent besides the body.
	method  string
	headers http.Header
	// mayHold: the caller waits for the recorder's verdict (the call's
	// request or reply channel) and holds the call if it says so.
	mayHold bool
	// reply half: the exchange as the capture completed it.
	reply *providers.Exchange
	gone  bool
	// unknown is a call no family serves, answered already.
	unknown *providers.Exchange
	// note is said after everything queued before it.
	note error
}

// queue hands j to the recorder and says whether its caller must wait for
// the verdict. A request may be held while the tap steps, or while it has
// breakpoints; once the tap is closed nothing is recorded or held.
func (t *Tap) queue(j job) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		if j.mayHold {
			j.call.reply <- nil
		}
		return false
	}
	if j.call != nil && j.reply == nil && !j.gone {
		j.mayHold = t.mayHold()
	}
	t.jobs = append(t.jobs, j)
	select {
	case t.work <- struct{}{}:
	default:
	}
	return j.mayHold
}

// record is the recorder: it takes the jobs in order until the tap is
// closed and none is left. Only it touches the builder.
func (t *Tap) record() {
	for {
		t.mu.Lock()
		jobs := t.jobs
		t.jobs = nil
		closed := t.closed
		t.mu.Unlock()
		for _, j := range jobs {
			t.take(j)
		}
		if len(jobs) > 0 {
			continue
		}
		if closed {
			t.mu.Lock()
			t.drained = true
			t.wake()
			t.mu.Unlock()
			return
		}
		<-t.work
	}
}

func (t *Tap) take(j job) {
	switch {
	case j.note != nil:
		t.mu.Lock()
		t.note(j.note)
		t.mu.Unlock()
	case j.unknown != nil:
		x := t.keys.mask().Exchange(*j.unknown)
		steps := t.builder.Response(x)
		t.mu.Lock()
		t.note(sentence.Errorf("the agent called %s %s, which no API family serves: it got a 404 naming the paths the tap knows", x.Method, pathOf(x.URL)))
		t.steps(steps, "")
		t.mu.Unlock()
		t.exchanged(x)
	case j.gone:
		x := j.call.shown
		x.Err = "the agent gave up waiting while glassbox held the request: it was not sent"
		steps := t.builder.Response(x)
		t.mu.Lock()
		t.steps(steps, j.call.dialect)
		t.replied(j.call)
		t.mu.Unlock()
	case j.reply != nil:
		t.takeReply(j)
	default:
		t.takeRequest(j)
	}
}

// takeRequest records a request as it arrives: masked, kept up to
// Options.Keep, turned into steps, and held when the tap holds it.
func (t *Tap) takeRequest(j job) {
	c := j.call
	x := t.keys.mask().Exchange(providers.Exchange{Method: j.method, URL: c.target.String(), RequestHeaders: j.headers, RequestBody: c.body})
	c.secret = !bytes.Equal(x.RequestBody, c.body)
	if len(x.RequestBody) > t.opt.Keep {
		x.RequestSize = int64(len(c.body))
		x.RequestBody = x.RequestBody[:t.opt.Keep:t.opt.Keep]
	}
	c.shown, c.dialect = x, c.codec.Family
	if j.mayHold { // the breakpoints tell a family's tool modes apart
		if req, err := c.codec.DecodeRequest(x.URL, x.RequestBody); err == nil && req.Dialect != "" {
			c.dialect = req.Dialect
		}
	}
	steps := t.builder.Request(x)
	t.mu.Lock()
	if x.RequestSize > 0 {
		t.note(sentence.Errorf("a request body of %d bytes: glassbox keeps and shows the first %d, and passed it on whole", x.RequestSize, t.opt.Keep))
	}
	stop := t.steps(steps, c.dialect)
	var h *held
	if j.mayHold && t.holdFor(stop) {
		h = t.hold(c, HeldRequest, x, stop)
	}
	t.nextLive++
	c.live = t.nextLive
	t.live, t.liveID = cloneLive(&x), c.live
	t.wake()
	t.mu.Unlock()
	if j.mayHold {
		c.request <- h
	}
}

// takeReply records a reply once it is read: the request as it was shown,
// with the reply the capture completed; the step that sent an edited
// request says so. It is held when the tap holds it.
func (t *Tap) takeReply(j job) {
	c, r := j.call, j.reply
	x := c.shown
	x.WireHeaders = r.WireHeaders
	x.Status, x.ResponseHeaders, x.ResponseBody, x.Chunks = r.Status, r.ResponseHeaders, r.ResponseBody, r.Chunks
	x.TTFB, x.Total, x.Err, x.ResponseSize = r.TTFB, r.Total, r.Err, r.ResponseSize
	for _, n := range r.Redacted {
		if !slices.Contains(x.Redacted, n) {
			x.Redacted = append(x.Redacted, n)
		}
	}
	steps := t.builder.Response(x)
	went := x
	if c.edit != nil {
		went.RequestBody, went.RequestSize = t.keys.mask().MaskBytes(c.send), 0
		markEdited(steps, c, went)
	}
	t.exchanged(went)
	t.mu.Lock()
	if x.ResponseSize > 0 {
		t.note(sentence.Errorf("a reply body of %d bytes: glassbox keeps and shows the first %d, and passed it on whole", x.ResponseSize, len(x.ResponseBody)))
	}
	stop := t.steps(steps, c.dialect)
	t.replied(c)
	var h *held
	if j.mayHold && t.holdFor(stop) {
		h = t.hold(c, HeldReply, x, stop)
	}
	t.mu.Unlock()
	if j.mayHold {
		c.reply <- h
	}
}

// exchanged hands a completed exchange to Options.OnExchange.
func (t *Tap) exchanged(x providers.Exchange) {
	if t.opt.OnExchange != nil {
		t.opt.OnExchange(x)
	}
}

// pathOf is a URL's path, for a note.
func pathOf(u string) string {
	if p, err := url.Parse(u); err == nil {
		return p.Path
	}
	return u
}
