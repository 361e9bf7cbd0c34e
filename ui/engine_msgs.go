package ui

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
)

// stepResult is what one engine.Step returned.
type stepResult struct {
	t   loop.Transition
	err error
}

// stepDoneMsg: the step in flight has finished (or failed, or was
// cancelled).
type stepDoneMsg stepResult

// personRequestMsg: the step in flight is waiting for the person (a
// confirmation or an ask_user question).
type personRequestMsg struct{ req *personRequest }

// wireRequestMsg: the provider call in flight just put its request on the
// wire (redacted, as captured).
type wireRequestMsg providers.Exchange

// wireChunkMsg: a piece of the response body of the call in flight arrived.
type wireChunkMsg providers.Chunk

// retryMsg: the provider call in flight failed transiently; the engine waits
// before trying again. Shown at once, not only when the step returns.
type retryMsg loop.Retry

// stepCmd runs one engine.Step in the background and reports back. The step
// may stop on the person halfway: then the command returns a
// personRequestMsg, and once the modal is answered awaitStep goes on waiting
// for the same step. One reader of both channels keeps the order exact.
func stepCmd(ctx context.Context, eng *loop.Engine, w stepWait) tea.Cmd {
	return func() tea.Msg {
		go func() {
			t, err := eng.Step(ctx)
			w.done <- stepResult{t: t, err: err}
		}()
		return w.next()
	}
}

// stepWait is everything a step in flight can tell the UI: that it ended,
// that it needs the person, or that it is retrying a provider call.
type stepWait struct {
	done     chan stepResult
	requests <-chan *personRequest
	retries  <-chan loop.Retry
	wire     <-chan tea.Msg // wireRequestMsg and wireChunkMsg, in arrival order
}

// awaitStep keeps waiting for the step in flight after a modal was answered
// or a retry was shown.
func awaitStep(w stepWait) tea.Cmd {
	return func() tea.Msg { return w.next() }
}

func (w stepWait) next() tea.Msg {
	// Wire events first: every chunk is queued before the step can return,
	// so the live view has all of them before the step's record replaces it.
	select {
	case msg := <-w.wire:
		return msg
	default:
	}
	select {
	case r := <-w.done:
		return stepDoneMsg(r)
	case req := <-w.requests:
		return personRequestMsg{req: req}
	case r := <-w.retries:
		return retryMsg(r)
	case msg := <-w.wire:
		return msg
	}
}

// waiting is the stepWait of the step in flight.
func (m *Model) waiting() stepWait {
	return stepWait{done: m.stepDone, requests: m.person.requestChan(), retries: m.retries, wire: m.wire}
}

// watchWire returns ctx with a recorder that copies the call's exchange to
// the UI as it happens: the request when it goes out, each chunk as it
// arrives. Sends never block the HTTP reader; what the pane misses live,
// the step's record has in full.
func (m *Model) watchWire(ctx context.Context) context.Context {
	wire := m.wire
	send := func(msg tea.Msg) {
		select {
		case wire <- msg:
		default:
		}
	}
	return providers.WithRecorder(ctx, &providers.Recorder{
		OnRequest: func(ex providers.Exchange) { send(wireRequestMsg(ex)) },
		OnChunk:   func(c providers.Chunk) { send(wireChunkMsg(c)) },
	})
}

// handleWire keeps the in-flight exchange the payload pane shows live.
func (m Model) handleWire(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case wireRequestMsg:
		ex := providers.Exchange(msg) // a retry starts a new exchange
		m.inflight = &ex
	case wireChunkMsg:
		if m.inflight != nil {
			ex := *m.inflight
			ex.Chunks = append(ex.Chunks[:len(ex.Chunks):len(ex.Chunks)], providers.Chunk(msg))
			m.inflight = &ex
		}
	}
	return m, awaitStep(m.waiting())
}

// handleRetry shows a retry while the engine waits, then keeps waiting.
func (m Model) handleRetry(r retryMsg) (tea.Model, tea.Cmd) {
	what := r.Reason
	if r.Status != 0 {
		what = fmt.Sprintf("HTTP %d", r.Status)
	}
	m.notice = fmt.Sprintf("retry %d: %s — waiting %s before trying again (ctrl+c cancels)", r.Attempt, what, time.Duration(r.WaitMS)*time.Millisecond)
	return m, awaitStep(m.waiting())
}

// startRun begins a run: one transition, one iteration or continue.
func (m *Model) startRun(mode runMode) tea.Cmd {
	if m.busy {
		m.notice = "busy: a step is in flight (p pauses a run, ctrl+c cancels)"
		return nil
	}
	if m.eng == nil {
		m.notice = "no engine is attached"
		return nil
	}
	m.run, m.runSteps, m.runModal, m.pauseAsked = mode, 0, false, false
	m.live.cursor = -1 // stepping shows the present
	return m.startStep()
}

// startStep sends one engine.Step on its way.
func (m *Model) startStep() tea.Cmd {
	ctx, cancel := context.WithCancel(m.base)
	m.stepCtx, m.stepCancel = ctx, cancel
	m.busy = true
	m.quitPending = false
	m.notice = ""
	m.stepDone = make(chan stepResult, 1)
	for len(m.retries) > 0 { // notices of an earlier step: its record has them
		<-m.retries
	}
	for len(m.wire) > 0 {
		<-m.wire
	}
	m.inflight = nil
	if m.live.state == loop.AwaitingLLMResponse {
		ctx = m.watchWire(ctx)
	}
	cmds := []tea.Cmd{stepCmd(ctx, m.eng, m.waiting())}
	if m.animate && !m.ticking {
		m.ticking = true
		cmds = append(cmds, m.spin.Tick)
	}
	return tea.Batch(cmds...)
}

// cancelStep cancels the step in flight, if any.
func (m *Model) cancelStep() {
	if m.stepCancel != nil {
		m.stepCancel()
	}
}

// handleStepDone takes in a finished step and decides whether the run goes on.
func (m Model) handleStepDone(msg stepDoneMsg) (tea.Model, tea.Cmd) {
	m.busy = false
	m.cancelStep()
	m.stepCancel = nil
	m.confirm, m.ask = nil, nil // a cancelled step may leave a modal behind

	if msg.err != nil {
		m.run = runOne
		switch {
		case errors.Is(msg.err, loop.ErrIdle):
			m.notice = "idle — nothing queued: enter (or /) to type a request"
		case errors.Is(msg.err, context.Canceled), errors.Is(msg.err, context.DeadlineExceeded):
			if m.live.state == loop.AwaitingLLMResponse {
				m.notice = "cancelled: press space to send again"
			} else {
				m.notice = "cancelled: press space to try again"
			}
			m.quitPending = true
		case errors.Is(msg.err, loop.ErrBusy):
			m.notice = "the engine is busy with another step"
		default:
			m.notice = "step failed: " + msg.err.Error()
		}
		return m, nil
	}

	t := msg.t
	m.live.record(m.hist, t)
	m.payload.follow()
	m.calls.off = 0
	m.runSteps++

	if stop, why := m.shouldStop(t); stop {
		m.notice = why
		m.run = runOne
		return m, nil
	}
	return m, m.startStep()
}

// shouldStop decides whether a run ends after transition t, and says why.
func (m *Model) shouldStop(t loop.Transition) (bool, string) {
	idle := t.To == loop.WaitingForEvent && t.QueueLen == 0
	done := "idle — the answer is in History; enter (or /) to type the next request"
	if t.Edge == loop.EdgeReported {
		done = "halted — History says why; enter (or /) to type a new request"
	}
	switch {
	case m.run == runOne:
		if idle {
			return true, done
		}
		return true, ""
	case m.pauseAsked:
		return true, "paused: space steps, i runs an iteration, c continues"
	case idle:
		return true, done
	case m.diag.breakpoints[t.To]:
		return true, fmt.Sprintf("breakpoint: stopped on entering %s", t.To)
	case m.run == runIteration && t.Edge == loop.EdgeContextReady && m.runSteps > 1:
		return true, fmt.Sprintf("iteration %d begins: the request is assembled (space sends it)", t.Iteration)
	case m.run == runIteration && m.runModal:
		return true, "stopped after the person answered (i runs on, c continues)"
	}
	return false, ""
}

// handlePersonRequest opens the confirmation or question modal for the step
// in flight. The step waits until the modal is answered.
func (m Model) handlePersonRequest(msg personRequestMsg) (tea.Model, tea.Cmd) {
	if m.stepCtx != nil && m.stepCtx.Err() != nil {
		// The step was cancelled as the request arrived: nobody waits for it.
		msg.req.dismiss()
		return m, awaitStep(m.waiting())
	}
	m.runModal = true
	m.lessons, m.helpOpen = nil, false
	switch {
	case msg.req.confirm != nil:
		m.confirm = newConfirmModal(msg.req, m.runKey == "n")
	case msg.req.question != nil:
		m.ask = newAskModal(msg.req)
	default:
		msg.req.dismiss()
		return m, awaitStep(m.waiting())
	}
	return m, nil
}

// answered closes the modal and goes back to waiting for the step.
func (m *Model) answered() tea.Cmd {
	m.confirm, m.ask = nil, nil
	return awaitStep(m.waiting())
}
