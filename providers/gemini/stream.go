package gemini

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"google.golang.org/genai"

	"github.com/glassbox-dev/glassbox/providers"
)

// stream makes the call as gemini-cli and most Gemini apps do:
// :streamGenerateContent?alt=sse, one server-sent event per piece of the
// reply. The events are put back together into one response (see
// assembly), which readResponse then reads exactly as a unary reply.
func (p *Provider) stream(ctx context.Context, contents []*genai.Content, config *genai.GenerateContentConfig, recorder *providers.Recorder) (*genai.GenerateContentResponse, error) {
	var a assembly
	var streamErr error
	for event, err := range p.client.Models.GenerateContentStream(ctx, p.model, contents, config) {
		if err != nil {
			streamErr = err
			break // closes the body
		}
		a.add(event)
	}
	exchanges := recorder.Exchanges()
	if streamErr != nil {
		return nil, p.streamError(ctx, streamErr, a.events, exchanges)
	}
	return a.response(exchanges)
}

// streamError phrases a failure that ended the stream: the ones every call
// can have (a limit, a cancel, an API error — which may also arrive as an
// error object in the middle of the stream), and the two only a stream has:
// the connection cut after some events, and an event cut in the middle.
// Both of those are transport failures, retried.
func (p *Provider) streamError(ctx context.Context, err error, events int, exchanges []providers.Exchange) *providers.Error {
	var pe *providers.Error
	var ae genai.APIError
	if errors.As(err, &pe) || errors.As(err, &ae) || ctx.Err() != nil || len(exchanges) == 0 {
		return p.classifyError(ctx, err, exchanges)
	}
	last := exchanges[len(exchanges)-1]
	switch {
	case strings.Contains(last.Err, providers.ErrResponseTooLarge.Error()):
		return providers.Errorf(providers.KindOther, last.Status, providers.ErrResponseTooLarge,
			"Gemini's streamed reply was cut off: %v", providers.ErrResponseTooLarge) // a retry would be as large
	case last.Status == 0:
		return p.classifyError(ctx, err, exchanges) // no response at all
	case last.Err != "":
		return providers.Errorf(providers.KindNetwork, last.Status, err,
			"the connection to Gemini was cut in the middle of its streamed reply, after %s (%s); it may work on a retry.",
			eventCount(events), last.Err)
	case !bytes.HasSuffix(last.ResponseBody, []byte("\n")):
		return providers.Errorf(providers.KindNetwork, last.Status, err,
			"Gemini's streamed reply stopped in the middle of an event, after %s: the last event in the raw payload has no end, so it is not whole JSON; it may work on a retry.",
			eventCount(events))
	}
	return providers.Errorf(providers.KindOther, last.Status, err,
		"Gemini sent an event glassbox could not read, after %s (%v); the raw payload shows it.", eventCount(events), err)
}

func eventCount(n int) string {
	if n == 1 {
		return "1 complete event"
	}
	return fmt.Sprintf("%d complete events", n)
}

// assembly puts a streamed reply back together. Text arrives in pieces
// across several events, a function call whole in one, and the
// finishReason and the full usageMetadata in the last. Every part of every
// event is kept, in order — a thoughtSignature may come on a later part
// with no text of its own — and consecutive text pieces are joined into one
// part, as the unary reply would have them.
type assembly struct {
	events       int
	parts        []*genai.Part
	role         string
	finish       genai.FinishReason
	finishMsg    string
	usage        *genai.GenerateContentResponseUsageMetadata
	feedback     *genai.GenerateContentResponsePromptFeedback
	modelVersion string
	responseID   string
}

func (a *assembly) add(ev *genai.GenerateContentResponse) {
	if ev == nil {
		return
	}
	a.events++
	if ev.UsageMetadata != nil {
		a.usage = ev.UsageMetadata
	}
	if ev.PromptFeedback != nil {
		a.feedback = ev.PromptFeedback
	}
	if ev.ModelVersion != "" {
		a.modelVersion = ev.ModelVersion
	}
	if ev.ResponseID != "" {
		a.responseID = ev.ResponseID
	}
	if len(ev.Candidates) == 0 || ev.Candidates[0] == nil {
		return
	}
	cand := ev.Candidates[0]
	if cand.FinishReason != "" {
		a.finish = cand.FinishReason
	}
	if cand.FinishMessage != "" {
		a.finishMsg = cand.FinishMessage
	}
	if cand.Content == nil {
		return
	}
	if cand.Content.Role != "" {
		a.role = cand.Content.Role
	}
	for _, part := range cand.Content.Parts {
		if part != nil {
			a.addPart(part)
		}
	}
}

// addPart appends part, joining it to the previous one when both are
// plain text of the same kind (answer or thought) and the previous carries
// no signature yet (a signature stays on the part that closes its text).
func (a *assembly) addPart(part *genai.Part) {
	if n := len(a.parts); n > 0 && textOnly(part) {
		prev := a.parts[n-1]
		if textOnly(prev) && prev.Thought == part.Thought && len(prev.ThoughtSignature) == 0 {
			joined := *prev
			joined.Text += part.Text
			joined.ThoughtSignature = part.ThoughtSignature
			a.parts[n-1] = &joined
			return
		}
	}
	a.parts = append(a.parts, part)
}

// textOnly reports whether the part is text (or a thought) and nothing else.
func textOnly(p *genai.Part) bool {
	return p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil && p.FileData == nil &&
		p.ExecutableCode == nil && p.CodeExecutionResult == nil && p.VideoMetadata == nil &&
		p.ToolCall == nil && p.ToolResponse == nil && p.MediaResolution == nil
}

// response is the assembled reply. A stream that ended cleanly but without
// a finishReason was cut on the way (the service always closes a reply
// with one): a transport failure, retried. A blocked prompt has no
// candidate and says so in promptFeedback; readResponse explains it.
func (a *assembly) response(exchanges []providers.Exchange) (*genai.GenerateContentResponse, error) {
	resp := &genai.GenerateContentResponse{
		UsageMetadata:  a.usage,
		PromptFeedback: a.feedback,
		ModelVersion:   a.modelVersion,
		ResponseID:     a.responseID,
	}
	if a.feedback != nil && a.feedback.BlockReason != "" {
		return resp, nil
	}
	if a.finish == "" {
		status := 0
		if len(exchanges) > 0 {
			status = exchanges[len(exchanges)-1].Status
		}
		what := "no event at all"
		if a.events > 0 {
			what = eventCount(a.events) + ", none of them with a finishReason"
		}
		return nil, providers.Errorf(providers.KindNetwork, status, nil,
			"Gemini's streamed reply ended after %s: the service closes every reply with a finishReason, so this one was cut off on the way; it may work on a retry.", what)
	}
	role := a.role
	if role == "" {
		role = genai.RoleModel
	}
	resp.Candidates = []*genai.Candidate{{
		Content:       &genai.Content{Role: role, Parts: a.parts},
		FinishReason:  a.finish,
		FinishMessage: a.finishMsg,
	}}
	return resp, nil
}
