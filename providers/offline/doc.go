// Package offline is glassbox's built-in simulation of the model APIs it
// speaks, so the glass box works with no API key and no network. The real
// SDK clients talk to in-process http.Handlers through a RoundTripper
// (NewTransport), so the payloads a learner inspects offline have the same
// shape as live ones.
//
// Behind the handlers sits a deterministic "tutor model". It is stateless:
// each reply is decided from the conversation in the request alone, so
// re-sending a request or forking a session gives the same answer. Each
// API's side is an Emulator that its dialect's package writes (gemini,
// ollama, openai: emulator.go) and registers on its dialect.Descriptor;
// providers/backend hands every registered one to NewHandler. An emulator
// reads a request into one neutral conversation (Turns folded by a Folder,
// continued through a TurnCache so a long session's requests are not read
// again from their start), the Tutor decides from it (a lesson's script, a
// small intent matcher, or an honest "I only know the lessons"), and the
// emulator writes the Reply in its API's own shapes. Where a lesson shows
// what differs between dialects (a malformed reply, a cut one, Ollama's
// token-repeat stop), the dialect's Quirks say it; the tutor names no
// dialect.
//
// The lessons' catalogue (names, titles and requests in English and
// Japanese) is package providers/lessons; their scripts are here. The tutor
// answers in the language of the request it is sent (language.go): a
// Japanese request gets Japanese thoughts, questions and answers on every
// dialect, inside the same wire shapes; tool names and arguments do not
// change.
//
// Reading order for instructors: lessons.go (what the tutor does),
// conversation.go (how the dialects become one conversation), tutor.go
// (deciding, free-form requests), language.go (English or Japanese),
// quirks.go (what a dialect declares), server.go and transport.go
// (routing, latency, faults), turns.go and request.go (reading only what
// each request adds); then any dialect's emulator.go for a wire format.
package offline
