package tools

import "encoding/json"

// Previewer is implemented by tools that can say what a call would do before
// it runs. The loop shows the preview when it asks a person to approve the
// call: a line diff for write_file, the command and folder for
// execute_command. Preview must not change anything.
type Previewer interface {
	Preview(args json.RawMessage) string
}
