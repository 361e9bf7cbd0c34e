package history

// RoleNote is a line glassbox writes into the conversation for the person
// only, e.g. "continued with Llama from step 12; 3 Gemini thought signatures
// could not carry over". The History pane shows it; it is never sent to a
// model (the loop leaves notes out of every request).
const RoleNote Role = "note"

// WithoutNotes returns msgs without RoleNote messages; it returns msgs
// itself when there are none.
func WithoutNotes(msgs []Message) []Message {
	n := 0
	for _, m := range msgs {
		if m.Role == RoleNote {
			n++
		}
	}
	if n == 0 {
		return msgs
	}
	out := make([]Message, 0, len(msgs)-n)
	for _, m := range msgs {
		if m.Role != RoleNote {
			out = append(out, m)
		}
	}
	return out
}
