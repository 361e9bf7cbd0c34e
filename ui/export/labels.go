package export

import "github.com/glassbox-dev/glassbox/ui/lang"

// labels are a page's headings and labels in its language: both formats
// draw them from here, so Markdown and HTML say the same words.
type labels struct {
	Session, Started, FirstRequest, Health string
	Run, Timeline                          string
	TimelineHead                           [5]string // # (the step, as the trace numbers it), from, edge, to, what happened
	Step, Iteration                        string
	CallsHead                              string
	CallsColumns                           [7]string // tool, arguments, verdict, rule, reason, status, result
	Exchange, Masked                       string
	RequestHeaders, RequestBody            string
	ResponseHeaders, ResponseBody          string
	Ended                                  string
	History, HistoryAsOf, Empty            string
	// The anatomy of a model call's request, and a run's growth.
	KindsHead, PartsHead, TokensHead string
	KindColumns                      [5]string // kind, parts, bytes, tokens, share of the bytes
	PartColumns                      [4]string // part, label, bytes, tokens
	TokenColumns                     [3]string // figure, tokens, where it comes from
	GrowthHead                       string
	GrowthColumns                    [8]string // call, step, bytes, tokens estimated, tokens reported, kept, appended, cache breaks at
}

// labelsIn is the labels in language l.
func labelsIn(l lang.Lang) labels {
	return labels{
		Session:         l.T("Session"),
		Started:         l.T("Started"),
		FirstRequest:    l.T("First request"),
		Health:          l.T("Health"),
		Run:             l.T("Run"),
		Timeline:        l.T("Timeline"),
		TimelineHead:    [5]string{"#", l.T("from"), l.T("edge"), l.T("to"), l.T("what happened")},
		Step:            l.T("Step"),
		Iteration:       l.T("Iteration"),
		CallsHead:       l.T("Tool calls of this iteration"),
		CallsColumns:    [7]string{l.T("tool"), l.T("arguments"), l.T("verdict"), l.T("rule"), l.T("reason"), l.T("status"), l.T("result")},
		Exchange:        l.T("Raw HTTP exchange"),
		Masked:          l.T("masked"),
		RequestHeaders:  l.T("Request headers"),
		RequestBody:     l.T("Request body"),
		ResponseHeaders: l.T("Response headers"),
		ResponseBody:    l.T("Response body"),
		Ended:           l.T("This run had ended before that step."),
		History:         l.T("History"),
		HistoryAsOf:     l.T("History as of this step"),
		Empty:           l.T("(empty)"),
		KindsHead:       l.T("What it is made of (tokens estimated)"),
		PartsHead:       l.T("Part by part, in the body's order (tokens estimated)"),
		TokensHead:      l.T("Tokens, and where each figure comes from"),
		KindColumns:     [5]string{l.T("kind"), l.T("parts"), l.T("bytes"), l.T("tokens"), l.T("share of the bytes")},
		PartColumns:     [4]string{l.T("part"), l.T("label"), l.T("bytes"), l.T("tokens")},
		TokenColumns:    [3]string{l.T("figure"), l.T("tokens"), l.T("where it comes from")},
		GrowthHead:      l.T("Growth: every call sends the whole conversation again"),
		GrowthColumns:   [8]string{l.T("call"), l.T("at step"), l.T("bytes"), l.T("tokens, estimated"), l.T("tokens, reported"), l.T("kept"), l.T("appended"), l.T("cache breaks at")},
	}
}
