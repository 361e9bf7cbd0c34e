package offline

import (
	"fmt"
	"strings"
	"unicode"
)

// language is the language the tutor answers in: the language of the
// request it answers (languageOf). A Japanese request gets Japanese
// thoughts, questions and answers on every dialect; the tool names, the
// arguments and the wire shapes stay as they are.
type language int

const (
	english language = iota
	japanese
)

// languageOf is the language of a request: Japanese when it holds kana or
// kanji ("README を読んで"), else English.
func languageOf(request string) language {
	if hasJapanese(request) {
		return japanese
	}
	return english
}

// langCode is the language a --lang value ("en", "ja", as ui/lang.Lang
// spells it) names; anything else is English.
func langCode(code string) language {
	if strings.EqualFold(strings.TrimSpace(code), "ja") {
		return japanese
	}
	return english
}

// code is the language's code, as --lang spells it.
func (l language) code() string { return l.say("en", "ja") }

// say picks the English or the Japanese text.
func (l language) say(en, ja string) string {
	if l == japanese {
		return ja
	}
	return en
}

// sayf formats the English or the Japanese format with the same values.
func (l language) sayf(en, ja string, a ...any) string {
	return fmt.Sprintf(l.say(en, ja), a...)
}

// cite puts text the tutor repeats from a tool, the loop or the person
// (an error message, an answer) inside an English sentence as it is, and
// inside a Japanese one between 「」, so a reader sees where the tutor's
// own words stop.
func (l language) cite(text string) string {
	if l == japanese {
		return "「" + text + "」"
	}
	return text
}

// hasJapanese reports whether s contains kana or kanji.
func hasJapanese(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Han) {
			return true
		}
	}
	return false
}
