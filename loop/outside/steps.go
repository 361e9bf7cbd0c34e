package outside

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/glassbox-dev/glassbox/history"
	"github.com/glassbox-dev/glassbox/history/sentence"
	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/providers"
	"github.com/glassbox-dev/glassbox/providers/backend"
	"github.com/glassbox-dev/glassbox/providers/wire"
)

// Why an inferred step is believed (Transition.Inferred). They are
// sentences a screen shows; ui/lang holds their Japanese.
const (
	InferredApproval  = "The agent decides on its tool calls itself: glassbox sees no approval, only the result that came back in its next request."
	InferredRun       = "The agent ran the tool itself: glassbox sees only the result it sent back in its next request."
	InferredNoResult  = "The agent's next request carried no result for this call: it did not run it, or it dropped the result."
	InferredDelivered = "The agent shows the answer to its user: glassbox does not see that."
	InferredReported  = "The agent dealt with the failure itself (it may retry, or tell its user): glassbox does not see that."
)

// Reasons lists every Inferred sentence, for the catalog's test.
func Reasons() []string {
	return []string{InferredApproval, InferredRun, InferredNoResult, InferredDelivered, InferredReported}
}

// AgentRule is the rule named in the decision of an inferred approval or
// refusal: the agent's own, which glassbox does not see.
const AgentRule = "agent"

// results steps through the pending calls with the results the next
// request carries — each paired with its call by id, else by name, else
// by position — to ASSEMBLING_CONTEXT. Messages that are no call's result
// (a person's new words) come with the last step.
func (b *Builder) results(added []history.Message) []loop.Transition {
	used := make([]bool, len(added))
	var out []loop.Transition
	for i := range b.pending {
		pc := &b.pending[i]
		call := pc.Call
		k := pairResult(call, added, used)
		var res *history.Message
		if k >= 0 {
			used[k] = true
			res = &added[k]
		}
		out = append(out, b.runCall(pc, res)...)
		edge := loop.EdgeNextToolCall
		if i == len(b.pending)-1 {
			edge = loop.EdgeObserved
		}
		t := b.step(edge, "")
		t.Tool = &call
		if res != nil {
			t.Added = []history.Message{*res}
			t.Result = &loop.ResultRecord{Content: res.Result.Content, IsError: res.Result.IsError}
		}
		if edge == loop.EdgeObserved {
			for j, m := range added {
				if !used[j] {
					t.Added = append(t.Added, m)
				}
			}
		}
		out = append(out, t)
	}
	if len(b.pending) == 0 { // not reached: tool_call always has calls
		t := b.step(loop.EdgeObserved, "")
		t.Added = added
		out = append(out, t)
	}
	return out
}

// runCall is what the agent did with one call, inferred from its result:
// allowed and ran it (a success, or a failure when the result is an
// error), or — no result — refused it.
func (b *Builder) runCall(pc *loop.PendingCall, res *history.Message) []loop.Transition {
	call := pc.Call
	if res == nil {
		d := loop.Decision{Verdict: loop.DenyVerdict, Rule: AgentRule, Reason: InferredNoResult}
		pc.Decision, pc.Status = &d, loop.CallSkipped
		t := b.step(loop.EdgeDeny, InferredNoResult)
		t.Tool, t.Decision = &call, &d
		t.Error = &loop.ErrorRecord{Kind: "no_result", Message: InferredNoResult}
		return []loop.Transition{t}
	}
	d := loop.Decision{Verdict: loop.Allow, Rule: AgentRule, Reason: InferredApproval}
	pc.Decision, pc.Status = &d, loop.CallRunning
	allow := b.step(loop.EdgeAllow, InferredApproval)
	allow.Tool, allow.Decision = &call, &d

	r := res.Result
	rec := &loop.ResultRecord{Content: r.Content, IsError: r.IsError}
	pc.Result = rec
	edge := loop.EdgeToolSuccess
	pc.Status = loop.CallDone
	if r.IsError {
		edge, pc.Status = loop.EdgeToolFailure, loop.CallFailed
	}
	ran := b.step(edge, InferredRun)
	ran.Tool, ran.Result = &call, rec
	if r.IsError {
		ran.Error = &loop.ErrorRecord{Kind: "tool_failure", Message: firstLine(r.Content)}
	}
	return []loop.Transition{allow, ran}
}

// pairResult finds the result of call among msgs not yet used: by id when
// both have one, else the first of its name, else the first.
func pairResult(call history.ToolCall, msgs []history.Message, used []bool) int {
	first, named := -1, -1
	for i, m := range msgs {
		if used[i] || m.Role != history.RoleTool || m.Result == nil {
			continue
		}
		if call.ID != "" && m.Result.CallID == call.ID {
			return i
		}
		if call.ID != "" && m.Result.CallID != "" {
			continue // another call's
		}
		if named < 0 && m.Result.Name == call.Name {
			named = i
		}
		if first < 0 {
			first = i
		}
	}
	if named >= 0 {
		return named
	}
	return first
}

// reply reads the reply of the call in flight into its steps.
func (b *Builder) reply(x providers.Exchange) []loop.Transition {
	f := b.inflight
	b.inflight = nil
	resp := f.codec.DecodeResponse(f.req, x)
	rec := b.llmRecord(f, resp, x.Status, x.Total)
	return b.replied(resp, rec, []providers.Exchange{x})
}

// replied steps from AWAITING_LLM_RESPONSE with what the reply says: a
// failure (reported), an unusable reply, tool calls, or an answer
// (delivered). full is the steps' payload: the exchange, or nothing for a
// call known by its messages.
func (b *Builder) replied(resp *wire.Response, rec *loop.LLMRecord, full []providers.Exchange) []loop.Transition {
	switch {
	case resp.Error != nil || !resp.Complete:
		b.pending = nil
		err := failure(resp)
		t := b.step(loop.EdgeLLMFailure, "")
		t.LLM, t.Exchanges = rec, full
		t.Error = &loop.ErrorRecord{Kind: "llm_failure", Message: err.Error(), Said: err}
		r := b.step(loop.EdgeReported, InferredReported)
		r.Error = t.Error
		r.Output = &loop.Output{Target: b.opt.Source, Text: err.Error(), Halted: true}
		return []loop.Transition{t, r}
	}
	msg := history.Message{Role: history.RoleAssistant, Text: resp.Text, Thought: resp.Thought, ToolCalls: resp.ToolCalls}
	b.known = append(b.known[:len(b.known):len(b.known)], msg)
	switch {
	case resp.Malformed != "":
		t := b.step(loop.EdgeMalformedResponse, "")
		t.LLM, t.Exchanges, t.Added = rec, full, []history.Message{msg}
		t.Error = &loop.ErrorRecord{Kind: "malformed_response", Message: resp.Malformed}
		return []loop.Transition{t}
	case len(resp.ToolCalls) > 0:
		b.pending = make([]loop.PendingCall, len(resp.ToolCalls))
		for i, c := range resp.ToolCalls {
			b.pending[i] = loop.PendingCall{Call: c, Status: loop.CallPending}
		}
		t := b.step(loop.EdgeToolCall, "")
		t.LLM, t.Exchanges, t.Added = rec, full, []history.Message{msg}
		return []loop.Transition{t}
	}
	b.pending = nil
	t := b.step(loop.EdgeFinalAnswer, "")
	t.LLM, t.Exchanges, t.Added = rec, full, []history.Message{msg}
	d := b.step(loop.EdgeDelivered, InferredDelivered)
	d.Output = &loop.Output{Target: b.opt.Source, Text: resp.Text}
	return []loop.Transition{t, d}
}

// llmRecord is the call as the trace records one of glassbox's own.
func (b *Builder) llmRecord(f *flight, resp *wire.Response, status int, total time.Duration) *loop.LLMRecord {
	provider := f.family
	if d, ok := backend.Lookup(f.req.Dialect); ok {
		provider = d.Provider
	}
	model := f.req.Model
	if model == "" {
		model = resp.Model
	}
	rec := &loop.LLMRecord{
		Provider: provider, Backend: b.opt.Backend, Model: model,
		StopReason: string(resp.StopReason()), FinishReason: resp.FinishReason,
		Text: resp.Text, Thought: resp.Thought, ToolCalls: resp.ToolCalls,
		LatencyMS: total.Milliseconds(), TotalMS: total.Milliseconds(), HTTPStatus: status,
	}
	if resp.Error != nil || !resp.Complete {
		rec.StopReason = ""
	}
	if u := resp.Usage; u != nil {
		rec.Usage = providers.Usage{InputTokens: u.Input, OutputTokens: u.Output, ThoughtsTokens: u.Thoughts, CachedTokens: u.Cached}
	}
	return rec
}

// failure says why a reply could not be used.
func failure(r *wire.Response) error {
	if e := r.Error; e != nil {
		what := e.Message
		if e.Code != "" {
			what = e.Code + ": " + what
		}
		return sentence.Errorf("the service answered HTTP %d: %s", e.Status, what)
	}
	switch r.Cut {
	case cutNoReply:
		return sentence.Errorf("the trace holds no reply to this call")
	case wire.CutTransport:
		return sentence.Errorf("the reply was cut off after %d records: the connection failed (%s)", r.Records, r.Transport)
	case wire.CutPartialRecord:
		return sentence.Errorf("the reply stopped in the middle of a record, after %d whole records", r.Records)
	}
	if r.Problem != "" {
		return sentence.Errorf("the reply ended after %d records without saying it was done; a record could not be read (%s)", r.Records, r.Problem)
	}
	return sentence.Errorf("the reply ended after %d records without saying it was done", r.Records)
}

// unknownCall says a call is no model call glassbox can read.
func unknownCall(cs wire.Codecs, x providers.Exchange) error {
	return sentence.Errorf("glassbox cannot read this call: %s %s is not a model call of any dialect it knows (%s)",
		x.Method, pathOf(x.URL), strings.Join(cs.Paths(), "; "))
}

// unreadable says a model call's body could not be read.
func unreadable(c wire.Codec, err error) error {
	return sentence.Errorf("glassbox could not read this %s request: %w", c.Family, err)
}

func pathOf(target string) string {
	if u, err := url.Parse(target); err == nil && u.Path != "" {
		return u.Path
	}
	return target
}

// flushUnread shows, once the loop is idle, each call nothing could read
// as a call that failed: taken, sent, not understood, reported.
func (b *Builder) flushUnread() []loop.Transition {
	var out []loop.Transition
	for b.state == loop.WaitingForEvent && b.inflight == nil && len(b.unread) > 0 {
		u := b.unread[0]
		b.unread = b.unread[1:]
		b.iteration, b.pending = 0, nil
		ev := b.step(loop.EdgeNewEvent, "")
		ev.Event = &loop.Event{Source: b.opt.Source, Type: "unread_call", Data: u.x.Method + " " + pathOf(u.x.URL)}
		b.iteration++
		sent := b.step(loop.EdgeContextReady, "")
		sent.Exchanges = []providers.Exchange{u.x}
		failed := b.step(loop.EdgeLLMFailure, "")
		failed.Exchanges = []providers.Exchange{u.x}
		failed.LLM = &loop.LLMRecord{Backend: b.opt.Backend, HTTPStatus: u.x.Status, LatencyMS: u.x.Total.Milliseconds(), TotalMS: u.x.Total.Milliseconds()}
		failed.Error = &loop.ErrorRecord{Kind: "unread_call", Message: u.why.Error(), Said: u.why}
		rep := b.step(loop.EdgeReported, InferredReported)
		rep.Error = failed.Error
		rep.Output = &loop.Output{Target: b.opt.Source, Text: u.why.Error(), Halted: true}
		out = append(out, ev, sent, failed, rep)
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// commonPrefix is how many messages a and b share from the start.
func commonPrefix(a, b []history.Message) int {
	n := 0
	for n < len(a) && n < len(b) && sameMessage(a[n], b[n]) {
		n++
	}
	return n
}

// sameMessage says a and b are the same message as an agent sends it
// again: the same role, text and result, the same calls with the same
// arguments (as JSON: an agent may re-encode them) and ids where both
// have one. Reasoning is left out: agents drop it from what they resend.
func sameMessage(a, b history.Message) bool {
	if a.Role != b.Role || strings.TrimSpace(a.Text) != strings.TrimSpace(b.Text) || len(a.ToolCalls) != len(b.ToolCalls) {
		return false
	}
	for i, c := range a.ToolCalls {
		d := b.ToolCalls[i]
		if c.Name != d.Name || c.CanonicalArgs() != d.CanonicalArgs() || (c.ID != "" && d.ID != "" && c.ID != d.ID) {
			return false
		}
	}
	switch {
	case a.Result == nil && b.Result == nil:
		return true
	case a.Result == nil || b.Result == nil:
		return false
	}
	return fmt.Sprint(*a.Result) == fmt.Sprint(*b.Result)
}
