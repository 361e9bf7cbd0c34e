package tools

// UnifiedDiff is the unified diff of two texts (the form write_file's
// preview uses), at most maxLines long; the what-if editor shows with it
// what a person changed in the context about to be sent.
func UnifiedDiff(oldName, newName, oldText, newText string, maxLines int) string {
	return unifiedDiff(oldName, newName, oldText, newText, maxLines)
}
