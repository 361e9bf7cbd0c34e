package providers

import (
	"errors"
	"strings"
	"testing"
)

type sdkError struct{ msg string }

func (e sdkError) Error() string { return e.msg }

func TestMaskError(t *testing.T) {
	const key = "AIzaSy-secret-0123456789"
	tr := NewTransport(nil, key)
	cause := sdkError{"400: Request with key " + key + " is invalid"}
	in := &Error{Kind: KindBadRequest, Status: 400, Message: "Gemini said: Request with key " + key + " is invalid", Err: cause}

	out := tr.MaskError(in)
	if strings.Contains(out.Error(), key) || !strings.Contains(out.Error(), RedactedMark) {
		t.Fatalf("message = %q", out.Error())
	}
	var pe *Error
	if !errors.As(out, &pe) || pe.Kind != KindBadRequest || pe.Status != 400 {
		t.Fatalf("the masked error lost its kind or status: %#v", out)
	}
	if strings.Contains(errors.Unwrap(pe).Error(), key) {
		t.Fatal("the cause's text still quotes the key")
	}
	var sdk sdkError
	if !errors.As(out, &sdk) {
		t.Fatal("errors.As no longer reaches the SDK's error")
	}
	if in.Message == pe.Message {
		t.Fatal("MaskError changed the caller's error in place")
	}
	clean := &Error{Kind: KindAuth, Message: "no key"}
	if tr.MaskError(clean) != clean {
		t.Fatal("an error with nothing to mask should come back as it was")
	}
	if tr.MaskError(nil) != nil {
		t.Fatal("MaskError(nil) != nil")
	}
}

func TestMaskerMasksTheLongestSecretWhole(t *testing.T) {
	m := NewMasker("sk-abcd", "sk-abcd-1234", "  ", "xy")
	if got := m.Mask("key sk-abcd-1234 and sk-abcd, xy"); got != "key [REDACTED] and [REDACTED], xy" {
		t.Fatalf("Mask = %q", got)
	}
}
