package shell

// Brace expansion, counted before it is done.

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// expandWord is a word after brace expansion (bash only) and quote
// removal, as the shell passes it to the command: usually one word, several
// for a brace expansion such as {/,x}, which becomes "/" and "x". ok is
// false when the word holds an expansion only known at run time.
func (r *reader) expandWord(w *syntax.Word) ([]string, bool) {
	_, known := r.literal(w)
	if n := braceCount(w); r.d.lang != syntax.LangBash || n <= 1 || n > maxBraceWords {
		// Not expanded: no expansion, or one of numbers only ({1..1000}),
		// which builds no name or path (a name holding one is unknown).
		return []string{r.render(w, true)}, known
	}
	// SplitBraces rewrites the word it is given, and the syntax tree is
	// still being walked: work on a copy. braceCount has bounded the
	// words it stands for.
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(braced)
	var words []string
	for ew, err := range expand.BracesSeq(nil, braced) {
		if err != nil || len(words) == maxBraceWords {
			return []string{r.render(w, true)}, false
		}
		words = append(words, r.render(ew, true))
	}
	return words, known
}

// braceCount is how many words w stands for after brace expansion, worked
// out from the unexpanded word (at most maxBraceWords+1, meaning "more").
func braceCount(w *syntax.Word) int {
	if !wordHasBrace(w) {
		return 1
	}
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	if !syntax.SplitBraces(braced) {
		return 1
	}
	return countBraces(braced)
}

// numbersOnly reports whether every brace expansion in w is a sequence of
// numbers ({1..1000}).
func numbersOnly(w *syntax.Word) bool {
	braced := &syntax.Word{Parts: slices.Clone(w.Parts)}
	syntax.SplitBraces(braced)
	for _, p := range braced.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		if !b.Sequence || len(b.Elems) < 2 {
			return false
		}
		for _, e := range b.Elems {
			if _, err := strconv.ParseInt(e.Lit(), 10, 64); err != nil {
				return false
			}
		}
	}
	return true
}

func wordHasBrace(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.ContainsRune(l.Value, '{') {
			return true
		}
	}
	return false
}

func countBraces(w *syntax.Word) int {
	const more = maxBraceWords + 1
	n := 1
	for _, p := range w.Parts {
		b, ok := p.(*syntax.BraceExp)
		if !ok {
			continue
		}
		k := 0
		if b.Sequence {
			k = sequenceLen(b)
		} else {
			for _, e := range b.Elems {
				k += countBraces(e)
				if k >= more {
					return more
				}
			}
		}
		n *= max(k, 1)
		if n >= more {
			return more
		}
	}
	return n
}

// sequenceLen is how many words {from..to[..step]} stands for.
func sequenceLen(b *syntax.BraceExp) int {
	const more = maxBraceWords + 1
	if len(b.Elems) < 2 {
		return 1
	}
	ends := make([]string, len(b.Elems))
	for i, e := range b.Elems {
		ends[i] = e.Lit()
	}
	step := int64(1)
	if len(ends) > 2 {
		s, err := strconv.ParseInt(ends[2], 10, 64)
		if err != nil {
			return more
		}
		step = max(s, -s, 1)
	}
	from, err1 := strconv.ParseInt(ends[0], 10, 64)
	to, err2 := strconv.ParseInt(ends[1], 10, 64)
	if err1 != nil || err2 != nil {
		if len(ends[0]) != 1 || len(ends[1]) != 1 {
			return 1 // not a sequence: the shell keeps it as written
		}
		from, to = int64(ends[0][0]), int64(ends[1][0]) // {a..z}
	}
	span := to - from
	if span < 0 {
		span = -span
	}
	if span < 0 || span/step+1 >= more {
		return more
	}
	return int(span/step + 1)
}
