// Package offline is glassbox's built-in simulation of the Gemini, Ollama and
// OpenAI-compatible chat completions APIs, so the glass box works with no API
// key and no network. The real genai, ollama and openai-go clients talk to
// in-process http.Handlers through a RoundTripper (NewTransport), so the
// payloads a learner inspects offline have the same shape as live ones.
//
// Behind the handlers sits a deterministic "tutor model". It is stateless:
// each reply is decided from the conversation in the request alone, so
// re-sending a request or forking a session gives the same answer. A request
// is decoded from its wire dialect (Gemini contents, Llama JSON-mode text,
// Ollama native tool_calls, chat completions tool_calls) into one neutral
// conversation, the tutor decides
// from it (a Lesson script, a small intent matcher, or an honest "I only know
// the lessons"), and the decision is encoded back into the same dialect.
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
// gemini.go, ollama.go and openai.go (the wire formats), server.go and
// transport.go (routing, latency, faults).
package offline
