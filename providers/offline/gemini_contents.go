package offline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
)

// geminiContents remembers the last request's contents: every request
// repeats the whole conversation, and reading all of it again each time
// made long sessions quadratic. When a request starts with the same bytes
// as the last one up to the end of its contents, only what follows is
// read: those bytes were checked when they first came. The zero value is
// ready; it is safe for concurrent use.
type geminiContents struct {
	mu   sync.Mutex
	body []byte // the last request, up to the end of its last content
	fold folder // what its contents were read into
	n    int    // how many contents it had

	tools    []byte // the last request's tools, as sent
	declares bool   // whether they declare a function
}

// declaresFunctions is geminiDeclaresFunctions, read once for the tools a
// session sends again with every request.
func (g *geminiContents) declaresFunctions(raw json.RawMessage) bool {
	g.mu.Lock()
	if g.tools != nil && bytes.Equal(g.tools, raw) {
		defer g.mu.Unlock()
		return g.declares
	}
	g.mu.Unlock()
	declares := geminiDeclaresFunctions(raw)
	g.mu.Lock()
	defer g.mu.Unlock()
	g.tools, g.declares = append([]byte{}, raw...), declares
	return declares
}

// geminiContentsHead is how the SDK's requests begin (its JSON keys come
// sorted, so contents come first).
const geminiContentsHead = `{"contents":[`

// read decodes body in the SDK's shape. When body continues the last
// request, list holds only the new contents and known the conversation of the n
// contents before them. ok is false when body is not in that shape; the
// caller then reads it the general way.
func (g *geminiContents) read(body []byte) (list geminiRequestList, known folder, n int, ok bool) {
	if !bytes.HasPrefix(body, []byte(geminiContentsHead)) {
		return list, folder{}, 0, false
	}
	g.mu.Lock()
	prev, prevFold, prevN := g.body, g.fold.fork(), g.n
	g.mu.Unlock()
	if len(prev) > 0 && len(body) > len(prev) && bytes.HasPrefix(body, prev) && (body[len(prev)] == ',' || body[len(prev)] == ']') {
		rest := body[len(prev):]
		if rest[0] == ',' {
			rest = rest[1:]
		}
		tail := append([]byte(geminiContentsHead), rest...)
		if json.Unmarshal(tail, &list) == nil && contentsEnd(tail, list) >= 0 {
			return list, prevFold, prevN, true
		}
		list = geminiRequestList{}
	}
	if err := json.Unmarshal(body, &list); err != nil || contentsEnd(body, list) < 0 {
		return geminiRequestList{}, folder{}, 0, false
	}
	return list, folder{}, 0, true
}

// contentsEnd is the offset in body just after the last content, or -1
// when the contents are not laid out as the SDK writes them (no white space
// between elements), so their end cannot be found from their lengths.
func contentsEnd(body []byte, list geminiRequestList) int {
	end := len(geminiContentsHead)
	for i, raw := range list.Contents {
		if i > 0 {
			end++ // the comma
		}
		end += len(raw)
	}
	if end >= len(body) || body[end] != ']' {
		return -1
	}
	return end
}

// remember keeps body up to the end of its contents, and their conversation.
func (g *geminiContents) remember(body []byte, list geminiRequestList, n int, fold folder) {
	// list holds only the new contents when body continued the last
	// request: the end is found from where those start.
	g.mu.Lock()
	defer g.mu.Unlock()
	start := 0
	if len(g.body) > 0 && bytes.HasPrefix(body, g.body) && n > len(list.Contents) {
		start = len(g.body)
		if body[start] == ',' {
			start++
		}
	} else {
		start = len(geminiContentsHead)
	}
	end := start
	for i, raw := range list.Contents {
		if i > 0 {
			end++
		}
		end += len(raw)
	}
	if len(list.Contents) == 0 {
		end = len(g.body)
	}
	if end <= 0 || end >= len(body) || body[end] != ']' {
		g.body, g.fold, g.n = nil, folder{}, 0
		return
	}
	// Nothing changes a request's body once read, and read hands out a
	// fork of the fold: keep both as they are.
	g.body, g.fold, g.n = body[:end:end], fold, n
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
