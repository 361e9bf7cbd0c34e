package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/glassbox-dev/glassbox/loop"
	"github.com/glassbox-dev/glassbox/tools"
)

// session is everything one run needs: the backend, the workspace, the
// tools and the engine, wired the same way for the TUI and headless mode.
type session struct {
	backend   *backend
	workspace *tools.Workspace
	temporary bool // the workspace is a copy of the sample, removed on exit
	engine    *loop.Engine
	cleanup   []func() error
}

func newSession(ctx context.Context, o options, person loop.Person) (*session, error) {
	s := &session{}
	b, err := chooseBackend(ctx, o)
	if err != nil {
		return nil, err
	}
	s.backend = b
	s.cleanup = append(s.cleanup, b.close)

	if o.workspace != "" {
		s.workspace, err = tools.NewWorkspace(o.workspace)
	} else {
		s.workspace, err = tools.NewSampleWorkspace()
		if err == nil {
			// A fresh copy for this run only: removed on exit, so runs do
			// not pile up in the temp folder (--workspace keeps files).
			s.temporary = true
			root := s.workspace.Root()
			s.cleanup = append(s.cleanup, func() error { return os.RemoveAll(root) })
		}
	}
	if err != nil {
		s.close()
		return nil, fmt.Errorf("workspace: %w", err)
	}
	registry := tools.Default(s.workspace, person, 0)
	if o.yes {
		person = yesPerson{person}
	}
	var onTransition func(loop.Transition)
	if o.trace != "" {
		f, err := os.OpenFile(o.trace, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			s.close()
			return nil, fmt.Errorf("%w: --trace: %v", errUsage, err)
		}
		s.cleanup = append(s.cleanup, f.Close)
		onTransition = func(t loop.Transition) {
			if err := loop.WriteJSON(f, t); err != nil {
				log.Printf("glassbox: --trace: %v", err)
			}
		}
	}
	policy := loop.DefaultPolicy()
	if o.policy != "" {
		if policy, err = loop.LoadPolicy(o.policy); err == nil {
			err = policy.CheckTools(registry.Names())
		}
		if err != nil {
			s.close()
			return nil, fmt.Errorf("%w: --policy %s: %v", errUsage, o.policy, err)
		}
	}
	s.engine, err = loop.New(loop.Config{
		Provider:      b.provider,
		Backend:       b.kind,
		BackendReason: b.reason,
		Tools:         registry,
		Workspace:     s.workspace,
		Policy:        policy,
		Person:        person,
		MaxIterations: o.maxIter,
		Sleep:         o.sleep,
		OnTransition:  onTransition,
		// Keys are masked in everything the engine records, whichever
		// backend runs: a command can still print them from the parent's
		// environment (/proc/$PPID/environ).
		Secrets: []string{os.Getenv("GEMINI_API_KEY"), os.Getenv("GOOGLE_API_KEY")},
	})
	if err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// yesPerson approves every confirmation (--yes) and passes questions on. The
// trace still shows confirm_required → user_approval, as a person would have
// seen it; DENY rules are never asked, so they still deny.
type yesPerson struct{ loop.Person }

func (yesPerson) Confirm(context.Context, loop.ConfirmRequest) (loop.Approval, error) {
	return loop.AllowOnce, nil
}

func (s *session) close() {
	for _, c := range s.cleanup {
		if err := c(); err != nil {
			log.Printf("glassbox: closing: %v", err)
		}
	}
}
