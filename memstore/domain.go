// Package memstore holds flagpole's domain rules and the immutable in-memory
// snapshot that every API request is answered from. It imports no database
// and no HTTP code: the loader fills it, the HTTP layer reads it.
package memstore

import (
	"math"
	"slices"
	"strings"
)

// Lang indexes the four languages of localized fields, in the order of the
// contract: tr, en, de, es.
type Lang int

// The languages, in their JSON order.
const (
	TR Lang = iota
	EN
	DE
	ES
	NumLangs
)

// LangCodes are the JSON keys of localized objects, indexed by Lang.
var LangCodes = [NumLangs]string{"tr", "en", "de", "es"}

// Category is one of the eight flag categories.
type Category uint8

// Categories are the eight category enum values, in alphabetical order of
// their slug, which is also the order of the category list's ties.
var Categories = []string{
	"BEHAVIORAL", "CHARACTER", "COMMUNICATION", "CULTURAL",
	"FINANCIAL", "LIFESTYLE", "RELATIONSHIP", "SOCIAL",
}

// NumCategories is the number of categories.
const NumCategories = 8

// ParseCategory matches s against the category enums and their lower-case
// slugs, case-insensitively.
func ParseCategory(s string) (Category, bool) {
	for i, c := range Categories {
		if strings.EqualFold(s, c) {
			return Category(i), true
		}
	}
	return 0, false
}

// Enum is the upper-case enum value of c.
func (c Category) Enum() string { return Categories[c] }

// Slug is the lower-case form of c.
func (c Category) Slug() string { return categorySlugs[c] }

var categorySlugs = func() []string {
	s := make([]string, len(Categories))
	for i, c := range Categories {
		s[i] = strings.ToLower(c)
	}
	return s
}()

// Contexts are the context enum values a flag may carry.
var Contexts = []string{"ROMANTIC", "FRIEND", "FAMILY", "WORK", "ROOMMATE", "ONLINE"}

// IsContext reports whether s is one of the context enums (exact case).
func IsContext(s string) bool {
	for _, c := range Contexts {
		if s == c {
			return true
		}
	}
	return false
}

// Dominant is the leading colour of a flag.
type Dominant uint8

// The three dominant colours; yellow is "mixed".
const (
	Red Dominant = iota
	Green
	Yellow
	NumDominants
)

var dominantNames = [NumDominants]string{"red", "green", "yellow"}

// String is the JSON value of d.
func (d Dominant) String() string { return dominantNames[d] }

// ParseDominant matches the exact lower-case filter values.
func ParseDominant(s string) (Dominant, bool) {
	for i, n := range dominantNames {
		if s == n {
			return Dominant(i), true
		}
	}
	return 0, false
}

// DominantOf applies the contract's 60 % rule: red when red holds at least
// 60 % of a non-zero total, green likewise, yellow otherwise. Integer
// arithmetic, so the boundary is exact.
func DominantOf(red, green int64) Dominant {
	total := red + green
	switch {
	case total <= 0:
		return Yellow
	case 5*red >= 3*total:
		return Red
	case 5*green >= 3*total:
		return Green
	default:
		return Yellow
	}
}

// Controversy is total ^ balance with balance = min/max of the two colours
// (0 when either is 0, so a one-sided flag scores 1).
func Controversy(red, green int64) float64 {
	total := float64(red + green)
	if red <= 0 || green <= 0 {
		return 1
	}
	lo, hi := float64(red), float64(green)
	if lo > hi {
		lo, hi = hi, lo
	}
	return math.Pow(total, lo/hi)
}

// Sort is a primary sort key of the flag list.
type Sort uint8

// The four sorts.
const (
	SortNet Sort = iota
	SortTotal
	SortControversial
	SortNewest
	NumSorts
)

var sortNames = [NumSorts]string{"net", "total", "controversial", "newest"}

// String is the query-parameter value of s.
func (s Sort) String() string { return sortNames[s] }

// ParseSort matches the exact lower-case sort values.
func ParseSort(v string) (Sort, bool) {
	for i, n := range sortNames {
		if v == n {
			return Sort(i), true
		}
	}
	return 0, false
}

// DefaultDesc reports the direction of s when no order is given: ascending
// for net (greenest first), descending for the others.
func (s Sort) DefaultDesc() bool { return s != SortNet }

// SortNames lists the sort values, for error messages and documentation;
// the slice is the caller's.
func SortNames() []string { return slices.Clone(sortNames[:]) }

// DominantNames lists the dominant values, for error messages; the slice
// is the caller's.
func DominantNames() []string { return slices.Clone(dominantNames[:]) }
