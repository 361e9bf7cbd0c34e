//go:build tools

// This file pins the module's dependencies while the packages that use them
// are written; it is never built.
package main

import (
	_ "github.com/BurntSushi/toml"
	_ "github.com/charmbracelet/bubbles/viewport"
	_ "github.com/charmbracelet/bubbletea"
	_ "github.com/charmbracelet/lipgloss"
	_ "github.com/charmbracelet/x/exp/golden"
	_ "github.com/charmbracelet/x/exp/teatest"
	_ "github.com/muesli/termenv"
	_ "github.com/ollama/ollama/api"
	_ "google.golang.org/genai"
)
