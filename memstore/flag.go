package memstore

import (
	"strconv"

	"github.com/cespare/xxhash/v2"
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

// Flag is an approved flag as the snapshot serves it: the keys it sorts
// and filters by, and its JSON, encoded once when it is loaded. The texts
// themselves live only in that JSON. A Flag is never modified once built,
// so snapshots share the ones that did not change.
type Flag struct {
	ID          string
	Slug        string
	Category    Category
	Region      string
	Red, Green  int64
	Dominant    Dominant
	controversy float64
	createdMS   int64
	updatedMS   int64
	content     uint64 // hash of everything encoded but the counters
	text        uint64 // hash of the four texts, for the search index

	// json is the detail object; json[:itemEnd] + "}" is the list item and
	// json[:searchCut] the start of a search item.
	json      []byte
	itemEnd   int32
	searchCut int32
	// words are the ids (in the snapshot's lexicon) of the flag's distinct
	// folded words; language l's are words[wordEnd[l-1]:wordEnd[l]].
	words   []uint32
	wordEnd [NumLangs]uint16
}

// lexicon numbers every folded word the snapshots of one loader have seen.
// Only Build writes it (one at a time); requests never read it.
type lexicon struct {
	ids   map[string]uint32
	words []string
}

func newLexicon() *lexicon { return &lexicon{ids: map[string]uint32{}} }

func (lx *lexicon) id(b []byte) uint32 {
	if id, ok := lx.ids[string(b)]; ok {
		return id
	}
	w := string(b)
	id := uint32(len(lx.words))
	lx.ids[w] = id
	lx.words = append(lx.words, w)
	return id
}

// wordsOf returns the word ids of language l.
func (f *Flag) wordsOf(l int) []uint32 {
	lo := uint16(0)
	if l > 0 {
		lo = f.wordEnd[l-1]
	}
	return f.words[lo:f.wordEnd[l]]
}

// Total is red + green.
func (f *Flag) Total() int64 { return f.Red + f.Green }

// Net is red minus green.
func (f *Flag) Net() int64 { return f.Red - f.Green }

// CreatedAt is when the flag was created.
func (f *Flag) CreatedAt() time.Time { return time.UnixMilli(f.createdMS).UTC() }

// AppendItem appends the flag's list item, as /flags returns it.
func (f *Flag) AppendItem(b []byte) []byte {
	b = append(b, f.json[:f.itemEnd]...)
	return append(b, '}')
}

// ItemLen is the length of the list item.
func (f *Flag) ItemLen() int { return int(f.itemEnd) + 1 }

// DetailJSON is the flag's detail object, as /flag/{slug} returns it.
func (f *Flag) DetailJSON() []byte { return f.json }

// SearchPrefix is the flag's search item without its rank and closing
// brace.
func (f *Flag) SearchPrefix() []byte { return f.json[:f.searchCut] }

// contentHash hashes what a flag encodes besides its counters, so a load
// can tell an unchanged flag without keeping its texts.
func contentHash(in *FlagInput) (content, text uint64) {
	h := xxhash.New()
	for _, t := range in.Text {
		h.WriteString(t)
		h.Write([]byte{0})
	}
	text = h.Sum64()
	for _, d := range in.Description {
		if d == nil {
			h.Write([]byte{1})
		} else {
			h.WriteString(*d)
			h.Write([]byte{0})
		}
	}
	for _, c := range in.Contexts {
		h.WriteString(c)
		h.Write([]byte{0})
	}
	h.WriteString(in.Slug)
	h.Write([]byte{0})
	h.WriteString(in.Category)
	h.Write([]byte{0})
	h.WriteString(in.Region)
	return h.Sum64(), text
}

// newFlag derives everything a Flag serves from in. The category must be
// valid; the loader checks it. Words are numbered in lx.
func newFlag(in *FlagInput, cat Category, prev *Flag, lx *lexicon, a *arena) *Flag {
	f := a.flag()
	*f = Flag{
		ID: a.str(in.ID), Slug: a.str(in.Slug), Category: cat, Region: a.str(in.Region), Red: in.Red, Green: in.Green,
		createdMS: in.CreatedAt.UnixMilli(), updatedMS: in.UpdatedAt.UnixMilli(),
	}
	f.content, f.text = contentHash(in)
	f.Dominant = DominantOf(f.Red, f.Green)
	f.controversy = Controversy(f.Red, f.Green)
	if prev != nil && prev.text == f.text {
		f.words, f.wordEnd = prev.words, prev.wordEnd
	} else {
		ids := a.wordBuffer()
		for l := range in.Text {
			ids = appendWordIDs(ids, in.Text[l], lx)
			f.wordEnd[l] = uint16(min(len(ids), 1<<16-1))
		}
		f.words = a.keepWords(ids[:f.wordEnd[NumLangs-1]])
	}
	f.encode(in, a)
	return f
}

// appendWordIDs appends the ids of the distinct folded words of s.
func appendWordIDs(ids []uint32, s string, lx *lexicon) []uint32 {
	start := len(ids)
	var buf []byte
	emit := func() {
		if len(buf) == 0 {
			return
		}
		id := lx.id(buf)
		buf = buf[:0]
		for _, x := range ids[start:] {
			if x == id {
				return
			}
		}
		ids = append(ids, id)
	}
	for _, r := range s {
		if isWordRune(r) {
			buf = foldRune(buf, r)
		} else {
			emit()
		}
	}
	emit()
	return ids
}

// TimeFormat is the contract's timestamp layout: UTC with milliseconds.
const TimeFormat = "2006-01-02T15:04:05.000Z"

func (f *Flag) encode(in *FlagInput, a *arena) {
	size := 220 + len(f.ID) + len(f.Slug) + len(f.Region)
	for l := range in.Text {
		size += len(in.Text[l]) + 8
		if in.Description[l] != nil {
			size += len(*in.Description[l]) + 8
		}
	}
	b := a.buffer(size + len(in.Contexts)*12)
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
		b = AppendString(b, in.Text[l])
	}
	b = append(b, `},"votes":`...)
	b = AppendVotes(b, f.Red, f.Green)
	b = append(b, `,"dominant":"`...)
	b = append(b, f.Dominant.String()...)
	b = append(b, '"')
	f.searchCut = int32(len(b))
	b = append(b, `,"createdAt":"`...)
	b = f.CreatedAt().AppendFormat(b, TimeFormat)
	b = append(b, '"')
	f.itemEnd = int32(len(b))
	b = append(b, `,"contexts":[`...)
	for i, c := range in.Contexts {
		if i > 0 {
			b = append(b, ',')
		}
		b = AppendString(b, c)
	}
	b = append(b, `],"description":{`...)
	for l, code := range LangCodes {
		if l > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, code...)
		b = append(b, `":`...)
		if in.Description[l] == nil {
			b = append(b, "null"...)
		} else {
			b = AppendString(b, *in.Description[l])
		}
	}
	b = append(b, "}}"...)
	f.json = a.keep(b)
}

// AppendVotes appends a Votes object.
func AppendVotes(b []byte, red, green int64) []byte {
	b = append(b, '{')
	b = AppendVoteFields(b, red, green)
	return append(b, '}')
}

// AppendVoteFields appends the fields of a Votes object, without braces,
// for objects that carry them inline (a trend snapshot).
func AppendVoteFields(b []byte, red, green int64) []byte {
	b = append(b, `"red":`...)
	b = strconv.AppendInt(b, red, 10)
	b = append(b, `,"green":`...)
	b = strconv.AppendInt(b, green, 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, red+green, 10)
	b = append(b, `,"net":`...)
	return strconv.AppendInt(b, red-green, 10)
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
