package loader

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

// recordTimeFormat is how an exported record writes its times: UTC with
// milliseconds, the API's format (an import reads any RFC 3339 time).
const recordTimeFormat = "2006-01-02T15:04:05.000Z"

// Record is one line of the import and export format: the /flag/{slug}
// shape plus status and snapshots. total, net and dominant are derived and
// ignored on import.
type Record struct {
	ID          string             `json:"id"`
	Slug        string             `json:"slug"`
	Category    string             `json:"category"`
	Region      *string            `json:"region"`
	Text        map[string]string  `json:"text"`
	Votes       RecordVotes        `json:"votes"`
	Dominant    string             `json:"dominant,omitempty"`
	CreatedAt   string             `json:"createdAt"`
	Contexts    []string           `json:"contexts"`
	Description map[string]*string `json:"description"`
	Status      string             `json:"status,omitempty"`
	Snapshots   []RecordSnapshot   `json:"snapshots,omitempty"`
}

// RecordVotes are a record's counters; only red and green are read.
type RecordVotes struct {
	Red   *int64 `json:"red"`
	Green *int64 `json:"green"`
	Total int64  `json:"total"`
	Net   int64  `json:"net"`
}

// RecordSnapshot is one day of a record's trend.
type RecordSnapshot struct {
	At    string `json:"at"`
	Red   *int64 `json:"red"`
	Green *int64 `json:"green"`
}

// MaxVotes bounds an imported counter: a trillion votes, far past any
// real flag, and small enough that the sums over a million flags and the
// dominant rule's 5 x red stay within int64.
const MaxVotes = 1_000_000_000_000

// flagRow is a validated record, ready to write.
type flagRow struct {
	memstore.FlagInput
	Status    string
	Snapshots []memstore.TrendRow
	// CreatedGiven: the line has createdAt. Without it a flag already
	// stored keeps its own, and a new one is created now (CreatedAt).
	CreatedGiven bool
}

var slugPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._~-]*$`)

// parseRecord decodes and checks one line; the error says what is wrong.
func parseRecord(line []byte) (*flagRow, error) {
	if !utf8.Valid(line) {
		return nil, errors.New("the line is not valid UTF-8 (JSON Lines are UTF-8)")
	}
	var r Record
	dec := json.NewDecoder(strings.NewReader(string(line)))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a JSON object of the flag format: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value on the line")
	}
	f := &flagRow{}
	for _, set := range []func(*Record) error{f.setIdentity, f.setPlace, f.setTexts, f.setVotes, f.setContexts, f.setTimes} {
		if err := set(&r); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// noNUL says why a string with U+0000 is refused: PostgreSQL's text
// cannot hold it, so a file SQLite took would not import there.
const noNUL = "contains a NUL character (\\u0000), which PostgreSQL cannot store"

// setIdentity checks and takes the record's status, id and slug.
func (f *flagRow) setIdentity(r *Record) error {
	f.Status = "APPROVED"
	if r.Status != "" {
		f.Status = r.Status
	}
	switch f.Status {
	case "APPROVED", "PENDING", "REJECTED":
	default:
		return fmt.Errorf("status %q: want APPROVED, PENDING or REJECTED", r.Status)
	}
	f.Approved = f.Status == "APPROVED"
	f.ID, f.Slug = r.ID, r.Slug
	if f.ID == "" || len(f.ID) > 64 {
		return errors.New("id: required, at most 64 characters")
	}
	if strings.ContainsRune(f.ID, 0) {
		return errors.New("id: " + noNUL)
	}
	if !slugPattern.MatchString(f.Slug) || len(f.Slug) > 200 {
		return fmt.Errorf("slug %q: required, URL-safe characters only (letters, digits, - . _ ~)", f.Slug)
	}
	return nil
}

// setPlace checks and takes the record's category and region.
func (f *flagRow) setPlace(r *Record) error {
	cat, ok := memstore.ParseCategory(r.Category)
	if !ok {
		return fmt.Errorf("category %q: want one of %s", r.Category, strings.Join(memstore.Categories, ", "))
	}
	f.Category = cat.Enum()
	if r.Region != nil {
		up := strings.ToUpper(*r.Region)
		if !memstore.IsAssignedCountry(up) {
			return fmt.Errorf("region %q: want null (world) or an ISO 3166-1 alpha-2 code", *r.Region)
		}
		f.Region = up
	}
	return nil
}

// setTexts checks and takes the record's texts (each required) and
// descriptions.
func (f *flagRow) setTexts(r *Record) error {
	for l, code := range memstore.LangCodes {
		t, ok := r.Text[code]
		if !ok || strings.TrimSpace(t) == "" {
			return fmt.Errorf("text.%s: required", code)
		}
		if strings.ContainsRune(t, 0) {
			return fmt.Errorf("text.%s: %s", code, noNUL)
		}
		f.Text[l] = t
		if d := r.Description[code]; d != nil {
			if strings.ContainsRune(*d, 0) {
				return fmt.Errorf("description.%s: %s", code, noNUL)
			}
			s := *d
			f.Description[l] = &s
		}
	}
	return nil
}

// setVotes checks and takes the record's counts.
func (f *flagRow) setVotes(r *Record) error {
	if !countOK(r.Votes.Red) || !countOK(r.Votes.Green) {
		return fmt.Errorf("votes.red and votes.green: required, integers from 0 to %d", int64(MaxVotes))
	}
	f.Red, f.Green = *r.Votes.Red, *r.Votes.Green
	return nil
}

// countOK is whether a count is given and from 0 to MaxVotes.
func countOK(n *int64) bool { return n != nil && *n >= 0 && *n <= MaxVotes }

// setContexts checks the record's contexts and takes each once.
func (f *flagRow) setContexts(r *Record) error {
	f.Contexts = []string{}
	seen := map[string]bool{}
	for _, c := range r.Contexts {
		if !memstore.IsContext(c) {
			return fmt.Errorf("contexts: %q is not one of %s", c, strings.Join(memstore.Contexts, ", "))
		}
		if !seen[c] {
			seen[c] = true
			f.Contexts = append(f.Contexts, c)
		}
	}
	return nil
}

// setTimes checks and takes the record's createdAt (now when it has none)
// and its snapshots.
func (f *flagRow) setTimes(r *Record) error {
	now := time.Now().UTC()
	f.CreatedAt = now.Truncate(time.Millisecond)
	if r.CreatedAt != "" {
		t, err := time.Parse(time.RFC3339Nano, r.CreatedAt)
		if err != nil {
			return fmt.Errorf("createdAt %q: want an ISO 8601 timestamp such as 2026-05-25T10:11:12.345Z", r.CreatedAt)
		}
		f.CreatedAt, f.CreatedGiven = t.UTC().Truncate(time.Millisecond), true
	}
	today := memstore.DayOf(now)
	for i, s := range r.Snapshots {
		t, err := time.Parse(time.RFC3339Nano, s.At)
		if err != nil {
			return fmt.Errorf("snapshots[%d].at %q: want an ISO 8601 timestamp", i, s.At)
		}
		if !countOK(s.Red) || !countOK(s.Green) {
			return fmt.Errorf("snapshots[%d]: red and green are required integers from 0 to %d", i, int64(MaxVotes))
		}
		// A day not yet begun has no counters; its row would stand in for
		// the day's snapshot, which never replaces a row it finds.
		if memstore.DayOf(t) > today {
			return fmt.Errorf("snapshots[%d].at %q: a day after today (UTC); its counters are recorded on the day", i, s.At)
		}
		f.Snapshots = append(f.Snapshots, memstore.TrendRow{FlagID: f.ID, Day: memstore.DayOf(t), Red: *s.Red, Green: *s.Green})
	}
	return nil
}

// record turns a stored flag back into the import format.
func record(f *flagRow) Record {
	r := Record{ID: f.ID, Slug: f.Slug, Category: f.Category, Status: f.Status,
		Text: map[string]string{}, Description: map[string]*string{}, Contexts: f.Contexts,
		CreatedAt: f.CreatedAt.UTC().Format(recordTimeFormat)}
	if f.Region != "" {
		reg := f.Region
		r.Region = &reg
	}
	for l, code := range memstore.LangCodes {
		r.Text[code] = f.Text[l]
		r.Description[code] = f.Description[l]
	}
	red, green := f.Red, f.Green
	r.Votes = RecordVotes{Red: &red, Green: &green, Total: red + green, Net: red - green}
	r.Dominant = memstore.DominantOf(red, green).String()
	for _, s := range f.Snapshots {
		sr, sg := s.Red, s.Green
		at := time.Unix(int64(s.Day)*86400, 0).UTC().Format(recordTimeFormat)
		r.Snapshots = append(r.Snapshots, RecordSnapshot{At: at, Red: &sr, Green: &sg})
	}
	return r
}

// eachRecord reads r as JSON Lines and calls fn with each record and its
// line number, skipping blank lines and a byte order mark; progress, when
// not nil, is told each line handled. An error of a line, the record's or
// fn's, comes back as a *LineError naming it.
func eachRecord(r io.Reader, progress func(line int), fn func(line int, f *flagRow) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			raw = bytes.TrimPrefix(raw, []byte("\xef\xbb\xbf")) // a UTF-8 byte order mark
		}
		if len(raw) == 0 {
			continue
		}
		f, err := parseRecord(raw)
		if err == nil {
			err = fn(line, f)
		}
		if err != nil {
			var le *LineError
			if errors.As(err, &le) {
				return err
			}
			return &LineError{Line: line, Err: err}
		}
		if progress != nil {
			progress(line)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			err = errors.New("the line is longer than 16 MiB")
		}
		return &LineError{Line: line + 1, Err: err}
	}
	return nil
}
