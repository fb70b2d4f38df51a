package memstore

import (
	"strconv"
	"time"
	"unicode/utf8"
)

// FlagInput is one flag as the loader reads it from the database.
type FlagInput struct {
	ID          string
	Slug        string
	Approved    bool
	Category    string
	Region      string // "" for the world region
	Text        [NumLangs]string
	Description [NumLangs]*string
	Contexts    []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Red, Green  int64
}

// Flag is an approved flag as the snapshot serves it: its fields, the keys
// it sorts by and its pre-encoded JSON. A Flag is never modified once built,
// so snapshots share the ones that did not change.
type Flag struct {
	ID          string
	Slug        string
	Category    Category
	Region      string
	Text        [NumLangs]string
	Description [NumLangs]*string
	Contexts    []string
	CreatedAt   time.Time
	UpdatedAt   time.Time
	Red, Green  int64
	Dominant    Dominant
	controversy float64
	createdMS   int64

	// item is the list item JSON; item[:searchCut] ends just before
	// `,"createdAt"`, the prefix of a search item; detail is item with the
	// closing brace replaced by the detail-only fields.
	item      []byte
	searchCut int
	detail    []byte
	etag      string
	words     [NumLangs][]string
}

// Total is red + green.
func (f *Flag) Total() int64 { return f.Red + f.Green }

// Net is red minus green.
func (f *Flag) Net() int64 { return f.Red - f.Green }

// ItemJSON is the flag's list item, as /flags returns it.
func (f *Flag) ItemJSON() []byte { return f.item }

// DetailJSON is the flag's detail object, as /flag/{slug} returns it.
func (f *Flag) DetailJSON() []byte { return f.detail }

// DetailETag is the strong ETag of DetailJSON.
func (f *Flag) DetailETag() string { return f.etag }

// newFlag derives everything a Flag serves from in. The category must be
// valid; the loader checks it.
func newFlag(in *FlagInput, cat Category, prev *Flag) *Flag {
	f := &Flag{
		ID: in.ID, Slug: in.Slug, Category: cat, Region: in.Region,
		Text: in.Text, Description: in.Description, Contexts: in.Contexts,
		CreatedAt: in.CreatedAt.UTC(), UpdatedAt: in.UpdatedAt.UTC(),
		Red: in.Red, Green: in.Green,
	}
	f.Dominant = DominantOf(f.Red, f.Green)
	f.controversy = Controversy(f.Red, f.Green)
	f.createdMS = f.CreatedAt.UnixMilli()
	if prev != nil && prev.Text == f.Text {
		f.words = prev.words
	} else {
		for l := range f.Text {
			f.words[l] = uniqueWords(f.Text[l])
		}
	}
	f.encode()
	return f
}

func uniqueWords(s string) []string {
	ws := Words(s)
	seen := make(map[string]bool, len(ws))
	out := ws[:0]
	for _, w := range ws {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// TimeFormat is the contract's timestamp layout: UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

func (f *Flag) encode() {
	b := make([]byte, 0, 512)
	b = append(b, `{"id":`...)
	b = AppendString(b, f.ID)
	b = append(b, `,"slug":`...)
	b = AppendString(b, f.Slug)
	b = append(b, `,"category":"`...)
	b = append(b, f.Category.Enum()...)
	b = append(b, `","region":`...)
	if f.Region == "" {
		b = append(b, "null"...)
	} else {
		b = AppendString(b, f.Region)
	}
	b = append(b, `,"text":{`...)
	for l, code := range LangCodes {
		if l > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, code...)
		b = append(b, `":`...)
		b = AppendString(b, f.Text[l])
	}
	b = append(b, `},"votes":`...)
	b = AppendVotes(b, f.Red, f.Green)
	b = append(b, `,"dominant":"`...)
	b = append(b, f.Dominant.String()...)
	b = append(b, '"')
	f.searchCut = len(b)
	b = append(b, `,"createdAt":"`...)
	b = f.CreatedAt.AppendFormat(b, TimeFormat)
	b = append(b, `"}`...)
	f.item = b[:len(b):len(b)]

	d := make([]byte, 0, len(b)+256)
	d = append(d, b[:len(b)-1]...)
	d = append(d, `,"contexts":[`...)
	for i, c := range f.Contexts {
		if i > 0 {
			d = append(d, ',')
		}
		d = AppendString(d, c)
	}
	d = append(d, `],"description":{`...)
	for l, code := range LangCodes {
		if l > 0 {
			d = append(d, ',')
		}
		d = append(d, '"')
		d = append(d, code...)
		d = append(d, `":`...)
		if f.Description[l] == nil {
			d = append(d, "null"...)
		} else {
			d = AppendString(d, *f.Description[l])
		}
	}
	d = append(d, "}}"...)
	f.detail = d
	f.etag = ETag(d)
}

// AppendVotes appends a Votes object.
func AppendVotes(b []byte, red, green int64) []byte {
	b = append(b, `{"red":`...)
	b = strconv.AppendInt(b, red, 10)
	b = append(b, `,"green":`...)
	b = strconv.AppendInt(b, green, 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, red+green, 10)
	b = append(b, `,"net":`...)
	b = strconv.AppendInt(b, red-green, 10)
	return append(b, '}')
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string, escaping as encoding/json does
// without HTML escaping; invalid UTF-8 becomes U+FFFD.
func AppendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// SearchPrefix is the flag's search item without its rank and closing
// brace.
func (f *Flag) SearchPrefix() []byte { return f.item[:f.searchCut] }
