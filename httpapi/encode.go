package httpapi

import (
	"strconv"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"

	"github.com/flagpole/flagpole/memstore"
)

// etag is the strong entity tag of a response body: a quoted 64-bit xxhash,
// the same on every instance for the same bytes.
func etag(body []byte) string {
	var b [20]byte
	out := append(b[:0], '"')
	out = strconv.AppendUint(out, xxhash.Sum64(body), 16)
	out = append(out, '"')
	return string(out)
}

// appendItem appends the list item of f, encoded as e.
func appendItem(b []byte, f *memstore.Flag, e *memstore.Encoding) []byte {
	b = appendSpliced(b, f, e, e.ItemEnd)
	return append(b, '}')
}

// renderDetail is the body of /flag/{slug}: f's detail object.
func renderDetail(f *memstore.Flag) []byte {
	e := encodingOf(f)
	return appendDetail(make([]byte, 0, int(e.CutLen)+len(e.JSON)), f, e)
}

// appendDetail appends the detail object of f, encoded as e.
func appendDetail(b []byte, f *memstore.Flag, e *memstore.Encoding) []byte {
	return appendSpliced(b, f, e, int32(len(e.JSON)))
}

// appendSpliced appends e.JSON[:end] with f's strings put back in their
// places (end is past them).
func appendSpliced(b []byte, f *memstore.Flag, e *memstore.Encoding, end int32) []byte {
	cuts := f.Cuts()
	strs := &cuts
	if e.Escaped != nil {
		strs = e.Escaped
	}
	at := int32(0)
	for k, cut := range e.CutAt {
		b = append(b, e.JSON[at:cut]...)
		b = append(b, strs[k]...)
		at = cut
	}
	return append(b, e.JSON[at:end]...)
}

// encodeFlag writes f's encoding (see memstore.Encoding) over buf's memory
// (from its start, growing it as needed) and returns the buffer and the
// encoding, whose JSON is in the buffer's memory.
func encodeFlag(buf []byte, f *memstore.Flag) ([]byte, memstore.Encoding) {
	var e memstore.Encoding
	b := buf[:0]
	cuts := f.Cuts()
	cut := func(k int) {
		at := len(b)
		e.CutAt[k] = int32(at)
		b = appendString(b, cuts[k])
		if esc := b[at+1 : len(b)-1]; len(esc) != len(cuts[k]) { // escaping lengthens what it changes
			if e.Escaped == nil {
				all := cuts
				e.Escaped = &all
			}
			e.Escaped[k] = string(esc)
		}
		e.CutLen += int32(len(b) - at - 2)
		b = append(b[:at], '"')
	}
	b = append(b, `{"id":"`...)
	cut(0)
	b = append(b, `,"slug":"`...)
	cut(1)
	b = append(b, `,"category":"`...)
	b = append(b, f.Category.Enum()...)
	b = append(b, `","region":`...)
	if f.Region == "" {
		b = append(b, "null"...)
	} else {
		b = appendString(b, f.Region)
	}
	b = append(b, `,"text":{`...)
	for l, code := range memstore.LangCodes {
		if l > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, code...)
		b = append(b, `":"`...)
		cut(2 + l)
	}
	b = append(b, `},"votes":`...)
	b = appendVotes(b, f.Red, f.Green)
	b = append(b, `,"dominant":"`...)
	b = append(b, f.Dominant.String()...)
	b = append(b, '"')
	e.SearchCut = int32(len(b))
	b = append(b, `,"createdAt":"`...)
	b = f.CreatedAt().AppendFormat(b, TimeFormat)
	b = append(b, '"')
	e.ItemEnd = int32(len(b))
	b = append(b, `,"contexts":[`...)
	for i, c := range f.Contexts {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, c)
	}
	b = append(b, `],"description":{`...)
	for l, code := range memstore.LangCodes {
		if l > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, code...)
		b = append(b, `":`...)
		if d := f.Description[l]; d == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, *d)
		}
	}
	b = append(b, "}}"...)
	e.JSON = b[:len(b):len(b)]
	return b, e
}

// appendVotes appends a Votes object.
func appendVotes(b []byte, red, green int64) []byte {
	b = append(b, '{')
	b = appendVoteFields(b, red, green)
	return append(b, '}')
}

// appendVoteFields appends the fields of a Votes object, without braces,
// for objects that carry them inline (a trend snapshot).
func appendVoteFields(b []byte, red, green int64) []byte {
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

// appendString appends s as a JSON string, escaping as encoding/json does
// without HTML escaping; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
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
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
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
