package anatomy

import "testing"

// The estimate's rule, on strings whose count is plain: a quarter token
// per ASCII character (rounded up over the part), one per other; the JSON
// around the strings counts nothing.
func TestEstimateRule(t *testing.T) {
	for _, tc := range []struct {
		part string
		want int
	}{
		{`"abcd"`, 1}, {`"abcdefgh"`, 2}, {`"abcde"`, 2}, {`"日本語"`, 3}, {`"a\nb\u00e9\u65e5"`, 1 + 2},
		{`{"key": "value"}`, 2}, {`{"n": 12345, "b": true}`, 1}, {`"\"\\"`, 1}, {``, 0}, {`[1, 2, 3]`, 0},
	} {
		if got := estimate([]byte(tc.part)); got != tc.want {
			t.Errorf("%s: %d tokens, want %d", tc.part, got, tc.want)
		}
	}
}

// A part that begins or ends inside a string (JSON mode's tool paragraphs)
// is counted as the text it is: the state carries over between parts.
func TestEstimateAcrossParts(t *testing.T) {
	body := []byte(`{"content":"system text\n### read_file\nRead a file.\n## How to reply"}`)
	cut := []int{0, 25, 54, len(body)}
	var s scan
	var got []int
	for i := 0; i+1 < len(cut); i++ {
		a, o := s.feed(body[cut[i]:cut[i+1]])
		got = append(got, a+o)
	}
	// "content" 7 + "system text\n" 12; "### read_file\nRead a file.\n" 28; "## How to reply" 15.
	if want := []int{7 + 12, 27, 15}; got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("characters per part %v, want %v (%q | %q | %q)", got, want, body[:25], body[25:54], body[54:])
	}
}

// A summary is what a front end keeps of every call of a long run: no
// parts, and none of the prompt's pieces a comparison reads (a 10,000
// message run would keep thousands of them per call).
func TestSummaryKeepsNoPieces(t *testing.T) {
	c := Call{Parts: []Part{{Tokens: 1}}, units: []unit{{Bytes: 3}}, Bytes: 3}
	s := c.Summary()
	if s.Parts != nil || s.units != nil || s.Bytes != 3 {
		t.Fatalf("summary %+v", s)
	}
	if len(c.units) != 1 {
		t.Fatal("Summary changed the call it summarises")
	}
}

// estimate counts the tokens of one piece of JSON by EstimateRule: its
// strings' characters, a quarter token per ASCII one, one per other.
func estimate(b []byte) int {
	var s scan
	a, o := s.feed(b)
	return (a+3)/4 + o
}
