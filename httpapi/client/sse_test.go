package client

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"
)

// readAll reads every event of body, and the error that ended it.
func readAll(body string, maxEvent int) ([]string, time.Duration, error) {
	r := newSSEReader(strings.NewReader(body), maxEvent, "", nil)
	var got []string
	for {
		ev, err := r.next()
		if err != nil {
			return got, r.retry, err
		}
		got = append(got, fmt.Sprintf("%s|%s|%s", ev.typ, ev.id, ev.data))
	}
}

// The event stream interpretation of the HTML standard: line ends, fields,
// comments, the id kept from event to event, data lines joined, and what
// is dropped.
func TestSSEReader(t *testing.T) {
	for _, c := range []struct {
		name, body string
		want       []string
	}{
		{"fields", "id: 1\nevent: votes\ndata: {}\n\n", []string{"votes|1|{}"}},
		{"unnamed is message", "data: x\n\n", []string{"message||x"}},
		{"CRLF", "id: 1\r\nevent: a\r\ndata: x\r\n\r\n", []string{"a|1|x"}},
		{"CR", "id: 1\revent: a\rdata: x\r\r", []string{"a|1|x"}},
		{"mixed ends", "event: a\r\ndata: x\rdata: y\n\r\n", []string{"a||x\ny"}},
		{"data lines joined", "data: a\ndata: b\ndata:\n\n", []string{"message||a\nb\n"}},
		{"one space dropped", "data:  two\n\n", []string{"message|| two"}},
		{"no colon", "data\n\n", []string{"message||"}},
		{"comments", ": ping\n\n: hello\ndata: x\n: mid\n\n", []string{"message||x"}},
		{"id kept", "id: 7\ndata: a\n\ndata: b\n\n", []string{"message|7|a", "message|7|b"}},
		{"id with NUL ignored", "id: 7\ndata: a\n\nid: 8\x00\ndata: b\n\n", []string{"message|7|a", "message|7|b"}},
		{"empty id resets", "id: 7\ndata: a\n\nid\ndata: b\n\n", []string{"message|7|a", "message||b"}},
		{"no data, no event", "event: end\n\nid: 3\n\ndata: x\n\n", []string{"message|3|x"}},
		{"type reset after dispatch", "event: a\ndata: 1\n\ndata: 2\n\n", []string{"a||1", "message||2"}},
		{"unknown field", "foo: bar\ndata: x\n\n", []string{"message||x"}},
		{"BOM", "\uFEFFdata: x\n\n", []string{"message||x"}},
		{"incomplete last event dropped", "data: x\n\ndata: y\n", []string{"message||x"}},
		{"no line end at EOF", "data: x\n\ndata: y", []string{"message||x"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := readAll(c.body, 1<<20)
			if err != io.EOF {
				t.Errorf("ended with %v, want io.EOF", err)
			}
			if strings.Join(got, "\n---\n") != strings.Join(c.want, "\n---\n") {
				t.Errorf("events %q, want %q", got, c.want)
			}
		})
	}
}

// retry takes a field of ASCII digits only, in milliseconds; the latest
// valid one counts.
func TestSSERetry(t *testing.T) {
	for body, want := range map[string]time.Duration{
		"retry: 2000\n\n":            2 * time.Second,
		"retry: 2000\nretry: 15\n\n": 15 * time.Millisecond,
		"retry: 300\nretry: 3x\n\n":  300 * time.Millisecond,
		"retry: -5\n\n":              0,
		"retry: +5\n\n":              0,
		"retry:\n\n":                 0,
		"retry: 1.5\n\n":             0,
	} {
		if _, got, _ := readAll(body, 1<<20); got != want {
			t.Errorf("%q: retry %s, want %s", body, got, want)
		}
	}
}

// One event may hold at most the bound, its lines together; comments and
// the events before it do not count towards it, so a long stream of
// pings never passes it.
func TestSSEBound(t *testing.T) {
	if _, _, err := readAll("data: "+strings.Repeat("x", 100)+"\n\n", 64); !errors.Is(err, errEventTooLarge) {
		t.Errorf("a line past the bound: %v, want errEventTooLarge", err)
	}
	if _, _, err := readAll(strings.Repeat("data: 0123456789\n", 10)+"\n", 64); !errors.Is(err, errEventTooLarge) {
		t.Errorf("lines past the bound together: %v, want errEventTooLarge", err)
	}
	body := strings.Repeat(": ping\n", 1000) + strings.Repeat("data: 0123456789\n\n", 1000)
	got, _, err := readAll(body, 64)
	if err != io.EOF || len(got) != 1000 {
		t.Errorf("pings and small events: %d events, %v; want 1000, io.EOF", len(got), err)
	}
}
