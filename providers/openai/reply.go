package openai

// This file puts a reply together: from one unary chat.completion body, or
// from a stream's chat.completion.chunk events, each adding its pieces — a
// bit of text, a tool call's id and name, a piece of its arguments — to the
// choice and the tool call its index names.

import (
	"strings"

	goa "github.com/sashabaranov/go-openai"

	"github.com/glassbox-dev/glassbox/providers"
)

// The furthest an event may reach: a choice index up to maxChoices-1, and a
// tool call index at most maxToolGrowth past the calls so far. An event
// beyond them does not continue this reply (the bounds openai-go's
// accumulator kept).
const (
	maxChoices    = 128
	maxToolGrowth = 128
)

// reply is a chat completion as glassbox reads it.
type reply struct {
	id      string
	choices []*choice
	usage   providers.Usage
}

// choice is one choice of the reply, its pieces joined as they arrive.
type choice struct {
	text   strings.Builder
	calls  []*pieces
	finish string
}

type pieces struct {
	id, name string
	args     strings.Builder
}

// message is the choice as the API wrote it.
func (c *choice) message() wireMessage {
	m := wireMessage{Content: c.text.String()}
	for _, p := range c.calls {
		m.ToolCalls = append(m.ToolCalls, wireCall{ID: p.id, Name: p.name, Arguments: p.args.String()})
	}
	return m
}

// add folds one event into the reply; false when it does not continue it
// (another completion's id, or an index out of range), and then nothing of
// it is taken.
func (r *reply) add(ev goa.ChatCompletionStreamResponse) bool {
	if r.id != "" && ev.ID != r.id {
		return false
	}
	for _, ch := range ev.Choices {
		if ch.Index < 0 || ch.Index >= maxChoices {
			return false
		}
		for _, tc := range ch.Delta.ToolCalls {
			if k := callIndex(tc); k < 0 || k >= r.callsOf(ch.Index)+maxToolGrowth {
				return false
			}
		}
	}
	r.id = ev.ID
	if ev.Usage != nil {
		r.usage = usageOf(*ev.Usage)
	}
	for _, ch := range ev.Choices {
		r.choice(ch.Index).add(ch)
	}
	return true
}

// callsOf is how many tool calls choice i has so far.
func (r *reply) callsOf(i int) int {
	if i < len(r.choices) {
		return len(r.choices[i].calls)
	}
	return 0
}

// choice is choice i, made (with any before it) on first mention.
func (r *reply) choice(i int) *choice {
	for len(r.choices) <= i {
		r.choices = append(r.choices, &choice{})
	}
	return r.choices[i]
}

func (c *choice) add(ch goa.ChatCompletionStreamChoice) {
	c.text.WriteString(ch.Delta.Content)
	if ch.FinishReason != "" {
		c.finish = string(ch.FinishReason)
	}
	for _, tc := range ch.Delta.ToolCalls {
		k := callIndex(tc)
		for len(c.calls) <= k {
			c.calls = append(c.calls, &pieces{})
		}
		p := c.calls[k]
		if tc.ID != "" {
			p.id = tc.ID
		}
		p.name += tc.Function.Name
		p.args.WriteString(tc.Function.Arguments)
	}
}

// callIndex is a tool call piece's index; a server that writes none means
// the first (openai-go read a missing index as 0 too).
func callIndex(tc goa.ToolCall) int {
	if tc.Index == nil {
		return 0
	}
	return *tc.Index
}

// unaryReply is a unary chat.completion body as a reply.
func unaryReply(c goa.ChatCompletionResponse) reply {
	r := reply{id: c.ID, usage: usageOf(c.Usage)}
	for _, ch := range c.Choices {
		if ch.Index < 0 || ch.Index >= maxChoices {
			continue
		}
		out := r.choice(ch.Index)
		out.text.WriteString(ch.Message.Content)
		out.finish = string(ch.FinishReason)
		for _, tc := range ch.Message.ToolCalls {
			p := &pieces{id: tc.ID, name: tc.Function.Name}
			p.args.WriteString(tc.Function.Arguments)
			out.calls = append(out.calls, p)
		}
	}
	return r
}

func usageOf(u goa.Usage) providers.Usage {
	out := providers.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		out.CachedTokens = u.PromptTokensDetails.CachedTokens
	}
	return out
}
