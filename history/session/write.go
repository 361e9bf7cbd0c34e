package session

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/glassbox-dev/glassbox/history/sentence"
)

// DataDir is the folder beside a session file: its exchanges, its file
// copies and (when glassbox made it) its workspace. s.jsonl keeps s.files/.
func DataDir(path string) string {
	return strings.TrimSuffix(path, filepath.Ext(path)) + ".files"
}

// ExchangesFile is where a session's raw HTTP exchanges are, one line per
// provider call.
func ExchangesFile(path string) string { return filepath.Join(DataDir(path), "exchanges.jsonl") }

// Writer appends to a session file. Every Write reaches the operating system
// before it returns (a kill -9 loses nothing written); it is safe for the
// two runs of compare mode to share one Writer.
type Writer struct {
	mu     sync.Mutex
	path   string
	header Header // what the seals are bound to
	key    *Key   // seals approvals (Guard); nil: none
	mask   Masker // masks every line (Guard); nil: none
	f      *os.File
	x      *os.File // exchanges
	xoff   int64
	blobs  *Blobs
	buf    []byte
}

// Create starts a new session file at path with its header. It refuses an
// existing file: a session is never overwritten.
func Create(path string, h Header) (*Writer, error) {
	h.Kind, h.Format = KindHeader, Format
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil, sentence.Errorf("%s already exists; a session file is never overwritten (resume it with --resume, or name another file)", path)
	}
	if err != nil {
		return nil, err
	}
	w, err := open(path, f, 0)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	w.header = h
	if err := w.write(h); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// Append reopens a session read with Read, to continue it. A torn last line
// (Read dropped it with a warning) is cut off first, so the next record
// starts on a line of its own.
func Append(file *File) (*Writer, error) {
	f, err := os.OpenFile(file.Path, os.O_WRONLY, 0)
	if err != nil {
		return nil, err
	}
	if err := f.Truncate(file.valid); err != nil {
		f.Close()
		return nil, sentence.Errorf("cutting the torn last line of %s: %w", file.Path, err)
	}
	if _, err := f.Seek(file.valid, 0); err != nil {
		f.Close()
		return nil, err
	}
	if file.unterminated {
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, err
		}
	}
	xst, err := os.Stat(ExchangesFile(file.Path))
	var xoff int64
	if err == nil {
		xoff = xst.Size()
	}
	w, err := open(file.Path, f, xoff)
	if err != nil {
		f.Close()
		return nil, err
	}
	w.header = file.Header
	return w, nil
}

func open(path string, f *os.File, xoff int64) (*Writer, error) {
	dir := DataDir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	x, err := os.OpenFile(ExchangesFile(path), os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	// Bytes past the last step that points at them belong to a step that
	// never ended; they are overwritten.
	if _, err := x.Seek(xoff, 0); err != nil {
		x.Close()
		return nil, err
	}
	return &Writer{path: path, f: f, x: x, xoff: xoff, blobs: &Blobs{dir: filepath.Join(dir, "blobs")}}, nil
}

// Path is the session file.
func (w *Writer) Path() string { return w.path }

// Blobs is the session's store of file contents.
func (w *Writer) Blobs() *Blobs { return w.blobs }

// Write appends one record as one line, masked and sealed as Guard says.
func (w *Writer) Write(r Record) error {
	w.mu.Lock()
	r = w.prepare(r)
	w.mu.Unlock()
	return w.write(r)
}

func (w *Writer) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b = w.maskJSON(b)
	w.buf = append(append(w.buf[:0], b...), '\n')
	_, err = w.f.Write(w.buf)
	return err
}

// WriteExchanges stores the JSON of one step's exchanges beside the session
// and returns where they are.
func (w *Writer) WriteExchanges(data []byte) (*Span, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n, err := w.x.WriteAt(append(data, '\n'), w.xoff)
	if err != nil {
		return nil, err
	}
	s := &Span{Offset: w.xoff, Length: int64(len(data))}
	w.xoff += int64(n)
	return s, nil
}

// Close closes the files.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return errors.Join(w.f.Close(), w.x.Close())
}

// MaxExchanges caps one step's exchanges read back from disk.
const MaxExchanges = 256 << 20

// ReadExchanges reads one step's exchanges (JSON) from a session's
// exchanges file.
func ReadExchanges(path string, s Span) ([]byte, error) {
	if s.Length < 0 || s.Offset < 0 || s.Length > MaxExchanges {
		return nil, sentence.Errorf("%w: an exchanges record of %d bytes (the limit is %d MiB)", ErrCorrupt, s.Length, MaxExchanges>>20)
	}
	f, err := os.Open(ExchangesFile(path))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b := make([]byte, s.Length)
	if _, err := f.ReadAt(b, s.Offset); err != nil {
		return nil, sentence.Errorf("%w: reading the exchanges at %d: %v", ErrCorrupt, s.Offset, err)
	}
	return b, nil
}
