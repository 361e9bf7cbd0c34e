package offline

import "github.com/glassbox-dev/glassbox/providers/lessons"

// Quirks are how a dialect differs where the lessons show it. The
// dialect's package declares them (on its dialect.Descriptor, and to the
// Folder its emulator reads a request into), so the tutor decides the
// same way for every dialect and names none: only the encoding of its
// reply, and these, differ.
type Quirks struct {
	// Name is how the tutor names the dialect in a sentence ("Gemini").
	Name Words
	// OneCallPerReply: a reply carries one tool call at most (JSON-mode
	// prompting), so the tutor makes parallel calls one after the other.
	OneCallPerReply bool
	// MisfireByUnknownTool: the dialect has no unusable reply of its own to
	// send (Ollama parses every native tool call), so the malformed lesson
	// calls a tool that does not exist instead.
	MisfireByUnknownTool bool
	// Malformed is how the malformed lesson's first, unusable reply went,
	// as the tutor tells it afterwards ("My first attempt ended with
	// finishReason MALFORMED_FUNCTION_CALL; …").
	Malformed Words
	// Cut is what a reply cut at the token limit looks like
	// ("finishReason MAX_TOKENS: Gemini stopped generating at the token
	// limit").
	Cut Words
	// RepeatStop is how the server ends a reply stuck repeating one token
	// ("Ollama stopped it and closed the stream without done:true"); empty
	// when the dialect has no such stop.
	RepeatStop Words
}

// Words are a few words in English and in Japanese.
type Words struct{ EN, JA string }

// In is the words in language lang ("ja" or anything else for English).
func (w Words) In(lang string) string { return langCode(lang).say(w.EN, w.JA) }

// in is the words in the tutor's language l.
func (w Words) in(l language) string { return l.say(w.EN, w.JA) }

// Shows reports whether a dialect with these quirks can show behaviour b,
// which a lesson needs (lessons.Lesson.Needs); "" needs nothing.
func (q Quirks) Shows(b lessons.Behaviour) bool {
	switch b {
	case "":
		return true
	case lessons.RepeatStop:
		return q.RepeatStop.EN != ""
	}
	return false
}
