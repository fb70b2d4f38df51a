package httpapi

import (
	"math"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

// queryParams reads the raw query string: only the names in known are
// kept; a known name given twice, or whose value does not decode, is a
// 400. Unknown names are ignored, however malformed.
func queryParams(raw string, known ...string) (map[string]string, error) {
	out := make(map[string]string, len(known))
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil || !contains(known, name) {
			continue
		}
		if _, dup := out[name]; dup {
			return nil, invalidParam(name, "%s is given more than once", name)
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return nil, invalidParam(name, "%s is not correctly percent-encoded", name)
		}
		out[name] = val
	}
	return out, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// intParam parses a base-10 integer parameter: absent gives def, below lo
// is a 400, above hi is clamped to hi. Digits only, an optional leading
// minus; a value too large for an int counts as above hi.
func intParam(params map[string]string, name string, def, lo, hi int) (int, error) {
	v, ok := params[name]
	if !ok {
		return def, nil
	}
	bad := func() error {
		if hi >= 1<<53-1 {
			return invalidParam(name, "%s must be an integer of at least %d", name, lo)
		}
		return invalidParam(name, "%s must be an integer between %d and %d", name, lo, hi)
	}
	digits, neg := strings.CutPrefix(v, "-")
	if digits == "" || len(digits) > 1000 {
		return 0, bad()
	}
	n := 0
	overflow := false
	for i := 0; i < len(digits); i++ {
		c := digits[i]
		if c < '0' || c > '9' {
			return 0, bad()
		}
		if n > (math.MaxInt-9)/10 {
			overflow = true
			continue
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		if n != 0 || overflow {
			return 0, bad()
		}
		n = 0
	}
	if n < lo && !overflow {
		return 0, bad()
	}
	if overflow || n > hi {
		return hi, nil
	}
	return n, nil
}

// listQuery parses the parameters of /flags.
func listQuery(raw string) (memstore.ListQuery, error) {
	p, err := queryParams(raw, "sort", "order", "category", "region", "dominant", "limit", "offset")
	if err != nil {
		return memstore.ListQuery{}, err
	}
	var q memstore.ListQuery
	if v, ok := p["sort"]; ok {
		if q.Sort, ok = memstore.ParseSort(v); !ok {
			return q, invalidParam("sort", "sort must be one of %s", strings.Join(memstore.SortNames(), ", "))
		}
	}
	q.Desc = q.Sort.DefaultDesc()
	if v, ok := p["order"]; ok {
		switch v {
		case "asc":
			q.Desc = false
		case "desc":
			q.Desc = true
		default:
			return q, invalidParam("order", "order must be one of asc, desc")
		}
	}
	if v, ok := p["category"]; ok {
		if q.Category, ok = memstore.ParseCategory(v); !ok {
			return q, invalidParam("category", "category must be one of %s (or its lower-case slug)",
				strings.Join(memstore.Categories, ", "))
		}
		q.HasCategory = true
	}
	if v, ok := p["region"]; ok {
		switch up := strings.ToUpper(v); {
		case strings.EqualFold(v, "world"):
			q.HasRegion, q.Region = true, ""
		case len(v) == 2 && memstore.IsAssignedCountry(up):
			q.HasRegion, q.Region = true, up
		default:
			return q, invalidParam("region", "region must be world or an ISO 3166-1 alpha-2 country code such as TR")
		}
	}
	if v, ok := p["dominant"]; ok {
		if q.Dominant, ok = memstore.ParseDominant(v); !ok {
			return q, invalidParam("dominant", "dominant must be one of %s", strings.Join(memstore.DominantNames(), ", "))
		}
		q.HasDominant = true
	}
	if q.Limit, err = intParam(p, "limit", 20, 1, 100); err != nil {
		return q, err
	}
	// Offsets are capped at 2^53-1, the largest integer a JSON client in
	// JavaScript reads exactly; any offset that large is past the end.
	if q.Offset, err = intParam(p, "offset", 0, 0, 1<<53-1); err != nil {
		return q, err
	}
	return q, nil
}

// searchQuery parses the parameters of /search: q as given, q as the
// index takes it (memstore.ParseQuery's rules bound its cost), and the
// limit.
func searchQuery(raw string) (string, memstore.Query, int, error) {
	var pq memstore.Query
	p, err := queryParams(raw, "q", "limit")
	if err != nil {
		return "", pq, 0, err
	}
	q, ok := p["q"]
	switch {
	case !ok:
		return "", pq, 0, invalidParam("q", "q is required: the text to search for, at least 2 characters")
	case !utf8.ValidString(q):
		return "", pq, 0, invalidParam("q", "q must be valid UTF-8")
	case utf8.RuneCountInString(q) > 200:
		return "", pq, 0, invalidParam("q", "q must be at most 200 characters")
	case utf8.RuneCountInString(strings.TrimSpace(q)) < 2:
		return "", pq, 0, invalidParam("q", "q must have at least 2 characters besides surrounding spaces")
	}
	if pq, err = memstore.ParseQuery(q); err != nil {
		return "", pq, 0, invalidParam("q", "%s", err.Error())
	}
	limit, err := intParam(p, "limit", 20, 1, memstore.MaxSearchLimit)
	return q, pq, limit, err
}

// trendDays parses the days parameter of /flag/{slug}/trend.
func trendDays(raw string) (int, error) {
	p, err := queryParams(raw, "days")
	if err != nil {
		return 0, err
	}
	return intParam(p, "days", 30, 1, memstore.TrendDays)
}
