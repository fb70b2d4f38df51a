package main

import (
	"fmt"
	"io"
	"os"
	"time"
)

// progress shows how far a long command is, on a terminal only; piped or
// redirected, it stays quiet.
type progress struct {
	w          io.Writer
	on         bool
	what, unit string
	last       time.Time
	shown      bool
}

func newProgress(w io.Writer, what, unit string) *progress {
	p := &progress{w: w, what: what, unit: unit}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

func (p *progress) update(done, total int) {
	if !p.on || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.shown = true
	if total > 0 {
		fmt.Fprintf(p.w, "\r%s: %d/%d %s (%d%%)", p.what, done, total, p.unit, done*100/total)
	} else {
		fmt.Fprintf(p.w, "\r%s: %d %s", p.what, done, p.unit)
	}
}

func (p *progress) done() {
	if p.shown {
		fmt.Fprintln(p.w)
	}
}
