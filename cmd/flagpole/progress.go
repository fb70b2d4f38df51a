package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mattn/go-isatty"
)

// terminal reports whether w is a terminal: an *os.File on one, or a
// writer that says it is (a test's).
func terminal(w io.Writer) bool {
	if t, ok := w.(interface{ Terminal() bool }); ok {
		return t.Terminal()
	}
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// progress shows how far a long command is, with the total and a
// percentage when they are known, on a terminal only (at most five times
// a second, and once more at the end); piped or redirected, it stays
// quiet.
type progress struct {
	w          io.Writer
	on         bool
	what, unit string
	last       time.Time
	line       func() string // the latest state, drawn when shown
}

func newProgress(w io.Writer, what, unit string) *progress {
	return &progress{w: w, what: what, unit: unit, on: terminal(w)}
}

// count is told done of total units (total 0: unknown).
func (p *progress) count(done, total int) {
	if !p.on {
		return
	}
	p.line = func() string {
		if total <= 0 {
			return fmt.Sprintf("%s: %d %s", p.what, done, p.unit)
		}
		return fmt.Sprintf("%s: %d/%d %s (%d%%)", p.what, done, total, p.unit, percent(int64(done), int64(total)))
	}
	p.show()
}

// share is told done units after reading read of size bytes (size 0:
// unknown, as for a pipe).
func (p *progress) share(done int, r, s int64) {
	if !p.on {
		return
	}
	p.line = func() string {
		if s <= 0 {
			return fmt.Sprintf("%s: %d %s, %s read", p.what, done, p.unit, mb(r))
		}
		return fmt.Sprintf("%s: %d %s, %s of %s (%d%%)", p.what, done, p.unit, mb(r), mb(s), percent(r, s))
	}
	p.show()
}

func (p *progress) show() {
	if time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	fmt.Fprintf(p.w, "\r%s\x1b[K", p.line())
}

// done draws the final state and ends the line.
func (p *progress) done() {
	if p.on && p.line != nil {
		fmt.Fprintf(p.w, "\r%s\x1b[K\n", p.line())
	}
}

func percent(done, total int64) int64 { return min(100, done*100/total) }

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }

// countingReader counts the bytes read through it; size is the file's
// size when the input is a regular file, else 0.
type countingReader struct {
	r          io.Reader
	read, size int64
}

func newCountingReader(r io.Reader) *countingReader {
	c := &countingReader{r: r}
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			c.size = st.Size()
		}
	}
	return c
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.read += int64(n)
	return n, err
}
