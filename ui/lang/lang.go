// Package lang is glassbox's message catalog: every sentence the glass box,
// the human trace and the command line show a person, in English and in
// Japanese.
//
// The English sentence is its own key, so code reads as it always did:
//
//	l.T("Press space to step.")               // a sentence
//	l.F("%d followers", n)                    // a sentence with values
//
// The Japanese for a sentence lives in a ja_*.go file of this package, one
// file per area of the program (ja_ui.go, ja_cli.go, …), each registering a
// map from the English text (or format) to the Japanese:
//
//	func init() {
//		register(map[string]string{
//			"Press space to step.": "スペースで一歩進みます。",
//			"%d followers":         "フォロワー %d 人",
//		})
//	}
//
// A Japanese format may reorder its values with explicit indexes
// ("%[2]s の %[1]d 行目"); it must use the same values with the same verbs.
//
// What is a protocol stays English in every language: the JSONL trace, state,
// edge, rule and tool names, the raw payloads and JSON-RPC frames. They are
// what a learner is learning, and they are not passed through T or F.
//
// catalog_test.go reads every T and F call in the program's source and fails
// when a sentence has no Japanese, when a Japanese format does not match its
// English one, or when a key is registered twice.
package lang

import (
	"fmt"
	"strings"
	"sync"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// Lang is a language the glass box speaks.
type Lang string

const (
	// EN is English, the default.
	EN Lang = "en"
	// JA is Japanese.
	JA Lang = "ja"
)

// All is every language, in the order help texts list them.
var All = []Lang{EN, JA}

// Parse reads a --lang value: "en" or "ja" (any case).
func Parse(s string) (Lang, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "en":
		return EN, nil
	case "ja":
		return JA, nil
	}
	return "", sentence.Errorf("unknown language %q: use en or ja", s)
}

// FromLocale picks the language from the locale variables the way the C
// library does: the first of LC_ALL, LC_MESSAGES and LANG that is set
// decides. A locale whose language is Japanese ("ja_JP.UTF-8", "ja") gives JA;
// anything else, including "C" and an unset locale, gives EN.
func FromLocale(getenv func(string) string) Lang {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if v == "ja" || strings.HasPrefix(v, "ja_") || strings.HasPrefix(v, "ja.") || strings.HasPrefix(v, "ja@") {
			return JA
		}
		return EN
	}
	return EN
}

// Choose returns the language a --lang flag value asks for, or, when the
// flag is empty, the locale's.
func Choose(flag string, getenv func(string) string) (Lang, error) {
	if flag != "" {
		return Parse(flag)
	}
	return FromLocale(getenv), nil
}

// T returns sentence en in language l. A sentence the catalog lacks is shown
// in English (catalog_test.go keeps that from happening in a release).
func (l Lang) T(en string) string {
	if l != JA {
		return en
	}
	if s, ok := japanese()[en]; ok {
		return s
	}
	return en
}

// F formats the sentence whose English format is format, in language l.
func (l Lang) F(format string, args ...any) string {
	return fmt.Sprintf(l.T(format), args...)
}

// Dyn is T for a sentence that is not a constant at the call site (a state's
// explanation, a lesson's title picked from a table). catalog_test.go cannot
// read such keys from the source, so the package that calls Dyn keeps a test
// that every key it can pass is in the catalog (see Has).
func (l Lang) Dyn(en string) string { return l.T(en) }

// Reason is a security decision's reason in language l: when it starts with
// one of known (the built-in rules' own words, loop.BuiltInReasons) that part
// is said through the catalog and what the rule matched after it is kept as
// it is; a reason from a --policy file is its author's and stays as written.
func (l Lang) Reason(reason string, known []string) string {
	for _, k := range known {
		if rest, ok := strings.CutPrefix(reason, k); ok && k != "" {
			return l.Dyn(k) + rest
		}
	}
	return reason
}

// Has reports whether the Japanese catalog holds sentence en.
func Has(en string) bool {
	_, ok := japanese()[en]
	return ok
}

// String is the language's code, as --lang takes it.
func (l Lang) String() string {
	if l == "" {
		return string(EN)
	}
	return string(l)
}

var (
	parts   []map[string]string
	merged  map[string]string
	mergeMu sync.Once
)

// register adds a part of the Japanese catalog; it is called from the
// init functions of the ja_*.go files.
func register(m map[string]string) { parts = append(parts, m) }

// japanese is the whole Japanese catalog, merged once on first use. When two
// parts hold the same key the first registered wins; catalog_test.go fails
// on such a key.
func japanese() map[string]string {
	mergeMu.Do(func() {
		merged = make(map[string]string)
		for _, p := range parts {
			for k, v := range p {
				if _, dup := merged[k]; !dup {
					merged[k] = v
				}
			}
		}
	})
	return merged
}

// OfArgs is the language of a command's help and of what it says before
// its flags are parsed: the last --lang among args (--lang ja, --lang=ja,
// -lang ja), else the locale. A --lang value that is not a language is left
// to the flag parsing to refuse; until then the locale speaks.
func OfArgs(args []string, getenv func(string) string) Lang {
	flag := ""
	for i, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "lang" {
			continue
		}
		if !hasValue && i+1 < len(args) {
			value = args[i+1]
		}
		flag = value
	}
	l, err := Choose(flag, getenv)
	if err != nil {
		return FromLocale(getenv)
	}
	return l
}
