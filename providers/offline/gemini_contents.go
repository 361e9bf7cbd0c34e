package offline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// geminiSide is what the simulated Gemini remembers between requests: the
// last one's contents (every request repeats them all) and its tools.
type geminiSide struct {
	turns turnCache[folder]
	tools toolsCache
}

// declarations are the tools a request declares.
type declarations struct {
	any   bool     // at least one function
	names []string // their names, in order
	mcp   []string // those that are MCP tools (mcpTools)
	roles roles    // how a foreign agent's tools play glassbox's
}

// toolsCache reads a request's tools once and again only when they
// change: a session sends the same ones with every request. The zero
// value is ready; it is safe for concurrent use.
type toolsCache struct {
	mu   sync.Mutex
	raw  []byte // the last request's tools, as sent
	decl declarations
}

// read returns the declarations of raw, a Gemini tools list.
func (c *toolsCache) read(raw json.RawMessage) declarations {
	c.mu.Lock()
	if c.raw != nil && bytes.Equal(c.raw, raw) {
		defer c.mu.Unlock()
		return c.decl
	}
	c.mu.Unlock()
	d := geminiDeclarations(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.raw, c.decl = append([]byte{}, raw...), d
	return d
}

// contentItems reads one content into items.
func contentItems(i int, c geminiInContent) ([]item, error) {
	parts, err := oneOrMany[geminiInPart](c.Parts)
	if err != nil {
		return nil, geminiRequestError{fmt.Sprintf("Invalid JSON payload received. contents[%d].parts: %v", i, err)}
	}
	switch c.Role {
	case "model":
		return []item{geminiModelItem(parts)}, nil
	case "user", "function", "":
		return geminiUserItems(parts), nil
	}
	return nil, geminiRequestError{fmt.Sprintf("Please use a valid role: user, model. (contents[%d].role is %q)", i, c.Role)}
}
