package httpapi

import (
	"math"
	"net/url"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

// maxParams is the most names a query of the API knows.
const maxParams = 8

// params are a query's known parameters, by their place in the list of
// names the route knows: a fixed array, not a map, so reading a query
// allocates nothing (but for a value that had to be decoded).
type params struct {
	known []string
	val   [maxParams]string
	has   uint16 // bit i: known[i] was given
}

// get returns the parameter name and whether the query gave it.
func (p *params) get(name string) (string, bool) {
	if i := slices.Index(p.known, name); i >= 0 {
		return p.val[i], p.has&(1<<i) != 0
	}
	return "", false
}

// The names each route knows.
var (
	listNames   = []string{"sort", "order", "category", "region", "dominant", "limit", "offset"}
	searchNames = []string{"q", "limit", "offset", "category", "region", "dominant", "lang"}
	trendNames  = []string{"days"}
	streamNames = []string{"slug", "lastEventId"}
)

// queryParams reads the raw query string: only the names in known (at
// most maxParams: a longer list is a programming error) are kept; a known
// name given twice, or whose value does not decode, is a 400. Unknown
// names are ignored, however malformed.
func queryParams(raw string, known []string) (params, error) {
	if len(known) > maxParams {
		panic("httpapi: a route knows more query parameters than maxParams")
	}
	p := params{known: known}
	for raw != "" {
		var part string
		part, raw, _ = strings.Cut(raw, "&")
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		name, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		i := slices.Index(p.known, name)
		if i < 0 {
			continue
		}
		if p.has&(1<<i) != 0 {
			return params{}, invalidParam(name, "%s is given more than once", name)
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return params{}, invalidParam(name, "%s is not correctly percent-encoded", name)
		}
		p.val[i] = val
		p.has |= 1 << i
	}
	return p, nil
}

// intParam parses a base-10 integer parameter: absent gives def, below lo
// is a 400, above hi is clamped to hi. Digits only, an optional leading
// minus; a value too large for an int counts as above hi, however many
// digits it has (the request line's own bound, max_header_bytes, bounds
// the scan).
func intParam(p *params, name string, def, lo, hi int) (int, error) {
	v, ok := p.get(name)
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
	if digits == "" {
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
	p, err := queryParams(raw, listNames)
	if err != nil {
		return memstore.ListQuery{}, err
	}
	var q memstore.ListQuery
	if v, ok := p.get("sort"); ok {
		if q.Sort, ok = memstore.ParseSort(v); !ok {
			return q, invalidParam("sort", "sort must be one of %s", strings.Join(memstore.SortNames(), ", "))
		}
	}
	q.Desc = q.Sort.DefaultDesc()
	if v, ok := p.get("order"); ok {
		switch v {
		case "asc":
			q.Desc = false
		case "desc":
			q.Desc = true
		default:
			return q, invalidParam("order", "order must be one of asc, desc")
		}
	}
	var f filters
	if f, err = filterParams(&p); err != nil {
		return q, err
	}
	q.Category, q.HasCategory = f.category, f.hasCategory
	q.Region, q.HasRegion = f.region, f.hasRegion
	q.Dominant, q.HasDominant = f.dominant, f.hasDominant
	if q.Limit, err = intParam(&p, "limit", 20, 1, 100); err != nil {
		return q, err
	}
	q.Offset, err = offsetParam(&p)
	return q, err
}

// offsetParam parses offset, of /flags and /search alike. Offsets are
// capped at 2^53-1, the largest integer a JSON client in JavaScript reads
// exactly; any offset that large is past the end.
func offsetParam(p *params) (int, error) {
	return intParam(p, "offset", 0, 0, 1<<53-1)
}

// filters are the filters /flags and /search share.
type filters struct {
	category                            memstore.Category
	region                              string // "" is the world
	dominant                            memstore.Dominant
	hasCategory, hasRegion, hasDominant bool
}

// filterParams parses category, region and dominant, with the same rules
// and errors wherever they are taken.
func filterParams(p *params) (filters, error) {
	var f filters
	if v, ok := p.get("category"); ok {
		if f.category, ok = memstore.ParseCategory(v); !ok {
			return f, invalidParam("category", "category must be one of %s (or its lower-case slug)",
				strings.Join(memstore.Categories, ", "))
		}
		f.hasCategory = true
	}
	if v, ok := p.get("region"); ok {
		switch up := strings.ToUpper(v); {
		case strings.EqualFold(v, "world"):
			f.hasRegion, f.region = true, ""
		case len(v) == 2 && memstore.IsAssignedCountry(up):
			f.hasRegion, f.region = true, up
		default:
			return f, invalidParam("region", "region must be world or an ISO 3166-1 alpha-2 country code such as TR")
		}
	}
	if v, ok := p.get("dominant"); ok {
		if f.dominant, ok = memstore.ParseDominant(v); !ok {
			return f, invalidParam("dominant", "dominant must be one of %s", strings.Join(memstore.DominantNames(), ", "))
		}
		f.hasDominant = true
	}
	return f, nil
}

// searchReq is a parsed /search request: q as given (it is echoed), q as
// the index takes it, and the filters, language and page.
type searchReq struct {
	q   string
	pq  *parsedQuery
	opt memstore.FindOptions
}

// searchQuery parses the parameters of /search, q through parse. q's
// errors come first: a bad parameter beside a bad q answers q's 400.
func searchQuery(raw string, parse func(string) (*parsedQuery, error)) (searchReq, error) {
	var r searchReq
	p, err := queryParams(raw, searchNames)
	if err != nil {
		return r, err
	}
	q, ok := p.get("q")
	switch {
	case !ok:
		return r, invalidParam("q", "q is required: the text to search for, at least 2 characters")
	case !utf8.ValidString(q):
		return r, invalidParam("q", "q must be valid UTF-8")
	case utf8.RuneCountInString(q) > 200:
		return r, invalidParam("q", "q must be at most 200 characters")
	case utf8.RuneCountInString(strings.TrimSpace(q)) < 2:
		return r, invalidParam("q", "q must have at least 2 characters besides surrounding spaces")
	}
	r.q = q
	if r.pq, err = parse(q); err != nil {
		return r, err
	}
	f, err := filterParams(&p)
	if err != nil {
		return r, err
	}
	o := &r.opt
	o.Category, o.HasCategory = f.category, f.hasCategory
	o.Region, o.HasRegion = f.region, f.hasRegion
	o.Dominant, o.HasDominant = f.dominant, f.hasDominant
	if v, ok := p.get("lang"); ok {
		if o.Lang, ok = parseLang(v); !ok {
			return r, invalidParam("lang", "lang must be one of %s", strings.Join(memstore.LangCodes[:], ", "))
		}
		o.HasLang = true
	}
	if o.Limit, err = intParam(&p, "limit", 20, 1, memstore.MaxSearchLimit); err != nil {
		return r, err
	}
	if o.Offset, err = offsetParam(&p); err != nil {
		return r, err
	}
	return r, nil
}

// parseLang matches a language code of the text object, exactly (as
// dominant's values are matched).
func parseLang(v string) (memstore.Lang, bool) {
	for l, code := range memstore.LangCodes {
		if v == code {
			return memstore.Lang(l), true
		}
	}
	return 0, false
}

// trendDays parses the days parameter of /flag/{slug}/trend.
func trendDays(raw string) (int, error) {
	p, err := queryParams(raw, trendNames)
	if err != nil {
		return 0, err
	}
	return intParam(&p, "days", 30, 1, memstore.TrendDays)
}
