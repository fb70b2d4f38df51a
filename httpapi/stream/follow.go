package stream

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFollow is the most slugs one stream may follow.
const MaxFollow = 100

// maxSlugBytes bounds one slug of a follow list.
const maxSlugBytes = 200

// Follow is the set of flags a stream follows, by slug. A nil *Follow
// follows every flag. A slug no flag has is followed all the same: its
// flag may be approved later.
//
// A Follow is small and shared: its slugs are pieces of one string (not of
// the request's query, which it does not keep), found by binary search,
// and the hub hands streams that follow the same slugs one Follow (see
// Hub.intern). Ten thousand streams of an overlay following 100 flags
// hold one copy of them, not ten thousand.
type Follow struct {
	key   string   // the slugs, sorted and distinct, joined by commas
	slugs []string // sorted, distinct; each a piece of key
}

// ParseFollow reads the slug parameter: comma-separated slugs, at most
// MaxFollow distinct ones, none empty. A slug given twice counts once.
// The error says what is wrong, for a client.
func ParseFollow(raw string) (*Follow, error) {
	if raw == "" {
		return nil, fmt.Errorf("slug must list at least one slug (comma-separated); leave it out to follow every flag")
	}
	parts := strings.Split(raw, ",")
	if len(parts) > 2*MaxFollow {
		return nil, fmt.Errorf("slug lists %d slugs; a stream follows at most %d", len(parts), MaxFollow)
	}
	for i, p := range parts {
		if p == "" {
			return nil, fmt.Errorf("slug has an empty slug at position %d: write slugs separated by single commas", i+1)
		}
		if len(p) > maxSlugBytes || !utf8.ValidString(p) || strings.IndexFunc(p, unicode.IsControl) >= 0 {
			return nil, fmt.Errorf("slug %d is not a slug: at most %d bytes of UTF-8 text without control characters",
				i+1, maxSlugBytes)
		}
	}
	slices.Sort(parts)
	parts = slices.Compact(parts)
	if len(parts) > MaxFollow {
		return nil, fmt.Errorf("slug lists %d slugs; a stream follows at most %d", len(parts), MaxFollow)
	}
	key := strings.Join(parts, ",")
	return &Follow{key: key, slugs: strings.Split(key, ",")}, nil
}

func (f *Follow) has(slug string) bool {
	_, ok := slices.BinarySearch(f.slugs, slug)
	return ok
}
