//go:build !unix

package agentrun

// HideSecrets does nothing here: there is no /proc to read an environment
// block from.
func HideSecrets() error { return nil }
