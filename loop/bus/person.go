package bus

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// ErrNoPerson is why a confirmation could not be asked: glassbox serves
// the bus on its standard input and output, there is no terminal to ask on,
// and the caller cannot ask its own person (no elicitation).
var ErrNoPerson = errors.New("no person could be asked: glassbox mcp-serve has no terminal, and the MCP client does not support elicitation")

// ErrCallerGone is why a confirmation could not be asked: the caller whose
// request is running cancelled it or went away.
var ErrCallerGone = errors.New("no person could be asked: the MCP client that sent this request has gone")

// Person asks the caller's own person, through MCP elicitation, when
// glassbox has no person of its own to ask (`glassbox mcp-serve` without a
// terminal). The caller asked is the one whose request the engine is
// running (Queue.Event), never another. A caller that cannot elicit gets
// no approval: the call is denied with ErrNoPerson, and the result says so.
func (b *Bus) Person() loop.Person { return elicitor{b} }

type elicitor struct{ b *Bus }

var _ loop.Person = elicitor{}

// caller is the session of the request the engine is running.
func (b *Bus) caller() (*mcp.ServerSession, error) {
	b.mu.Lock()
	q := b.q
	b.mu.Unlock()
	if q == nil {
		return nil, ErrNoPerson
	}
	ev := q.Event()
	if ev == nil || ev.Source != Source {
		return nil, ErrNoPerson // a request typed or given on the command line
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	c := b.calls[ev.Ref]
	if c == nil || c.session == nil {
		return nil, ErrCallerGone
	}
	return c.session, nil
}

func (p elicitor) session() (*mcp.ServerSession, error) {
	ss, err := p.b.caller()
	if err != nil {
		return nil, err
	}
	if ip := ss.InitializeParams(); ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
		return nil, ErrNoPerson
	}
	return ss, nil
}

const (
	allowOnce = "allow once"
	deny      = "deny"
)

func (p elicitor) Confirm(ctx context.Context, req loop.ConfirmRequest) (loop.Approval, error) {
	ss, err := p.session()
	if err != nil {
		return loop.Deny, err
	}
	msg := fmt.Sprintf("glassbox: the agent wants to run %s %s\nrule %s: %s", req.Call.Name, string(req.Call.Args), req.Decision.Rule, req.Decision.Reason)
	if req.Preview != "" {
		msg += "\n" + req.Preview
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message: p.b.mask.Mask(loop.Printable(msg)),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"decision"}, "properties": map[string]any{
			"decision": map[string]any{"type": "string", "enum": []string{allowOnce, deny}, "description": "allow this one call, or deny it"},
		}},
	})
	if err != nil {
		return loop.Deny, fmt.Errorf("asking the MCP client's person: %w", err)
	}
	if res.Action == "accept" && res.Content["decision"] == allowOnce {
		return loop.AllowOnce, nil
	}
	return loop.Deny, nil
}

func (p elicitor) Ask(ctx context.Context, q tools.Question) (string, error) {
	ss, err := p.session()
	if err != nil {
		return "", err
	}
	answer := map[string]any{"type": "string", "description": "your answer"}
	if len(q.Options) > 0 {
		answer["enum"] = q.Options
	}
	res, err := ss.Elicit(ctx, &mcp.ElicitParams{
		Message:         p.b.mask.Mask(loop.Printable("glassbox: the agent asks: " + q.Text)),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"answer"}, "properties": map[string]any{"answer": answer}},
	})
	if err != nil {
		return "", fmt.Errorf("asking the MCP client's person: %w", err)
	}
	s, _ := res.Content["answer"].(string)
	if res.Action != "accept" || s == "" {
		return "", errors.New("the MCP client's person gave no answer")
	}
	return s, nil
}
