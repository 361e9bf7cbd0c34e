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
	}
}
