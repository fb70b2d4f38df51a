package memstore

import (
	"iter"
	"strings"
	"unicode/utf8"
)

// A flag's strings: its contexts, which of them JSON takes as they are,
// and how they compare with and are copied from a FlagInput.

// Contexts are the flag's context values, in the order given; nil for
// none. A list of one to four enums is one shared by every flag that
// carries it, and costs no allocation; any other is made at each call.
// The caller must not modify it.
func (f *Flag) Contexts() []string {
	s := f.str(strContexts)
	if s == "" {
		return nil
	}
	if l := contextList(s); l != nil {
		return l
	}
	return strings.Split(s, ",")
}

// contextsOf yields the contexts written in s, joined by commas.
func contextsOf(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		if s == "" {
			return
		}
		for {
			i := strings.IndexByte(s, ',')
			if i < 0 {
				yield(s)
				return
			}
			if !yield(s[:i]) {
				return
			}
			s = s[i+1:]
		}
	}
}

// sameContexts reports whether s joins cs.
func sameContexts(s string, cs []string) bool {
	if len(cs) == 0 {
		return s == ""
	}
	for i, c := range cs {
		if i > 0 {
			if s == "" || s[0] != ',' {
				return false
			}
			s = s[1:]
		}
		if !strings.HasPrefix(s, c) {
			return false
		}
		s = s[len(c):]
	}
	return s == ""
}

// Verbatim reports whether Cuts()[k] goes into a JSON string as it is
// (JSONVerbatim), known from when f was built: an encoder copies such a
// string where it would otherwise read it rune by rune.
func (f *Flag) Verbatim(k int) bool { return f.verbatim&(1<<k) != 0 }

// JSONVerbatim reports whether s goes into a JSON string unchanged: valid
// UTF-8 with no control character, quote, backslash, U+2028 or U+2029,
// the runes encoding/json escapes when it does not escape HTML.
func JSONVerbatim(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return false
		}
		i += size
	}
	return true
}

// verbatimOf is the Verbatim bits of f's Cuts.
func verbatimOf(f *Flag) uint8 {
	var v uint8
	for k, s := range f.Cuts() {
		if JSONVerbatim(s) {
			v |= 1 << k
		}
	}
	return v
}

// sameAs reports whether f already holds exactly what in says.
func (f *Flag) sameAs(in *FlagInput, cat Category) bool {
	return f.Category == cat && f.Red == in.Red && f.Green == in.Green &&
		f.createdMS == in.CreatedAt.UnixMilli() && f.updatedMS == in.UpdatedAt.UnixMilli() &&
		f.sameStrs(in)
}

// inputStrs are in's strings in a Flag's order but the contexts (left
// ""), and its descs bits.
func inputStrs(in *FlagInput) (strs [numStrs]string, descs uint8) {
	strs[strID], strs[strSlug], strs[strRegion] = in.ID, in.Slug, in.Region
	for l := range NumLangs {
		strs[strText+int(l)] = in.Text[l]
		if d := in.Description[l]; d != nil {
			strs[strDesc+int(l)] = *d
			descs |= 1 << l
		}
	}
	return strs, descs
}

// sameStrs reports whether f's strings (its contexts among them) are
// in's.
func (f *Flag) sameStrs(in *FlagInput) bool {
	strs, descs := inputStrs(in)
	if descs != f.descs {
		return false
	}
	for k, s := range strs[:strContexts] {
		if f.str(k) != s {
			return false
		}
	}
	return sameContexts(f.str(strContexts), in.Contexts)
}

// appendStrs appends in's strings to b in one run, and returns their ends
// and in's descs bits.
func appendStrs(b []byte, in *FlagInput) ([]byte, [numStrs]uint32, uint8) {
	strs, descs := inputStrs(in)
	var ends [numStrs]uint32
	for k, s := range strs[:strContexts] {
		b = append(b, s...)
		ends[k] = uint32(len(b))
	}
	for i, c := range in.Contexts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, c...)
	}
	if len(b) > 1<<32-1 {
		panic("memstore: a flag's strings pass 4 GiB")
	}
	ends[strContexts] = uint32(len(b))
	return b, ends, descs
}
