package httpapi

import (
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/flagpole/flagpole/memstore"
)

// handler answers one data request from one snapshot.
type handler func(c *gin.Context, s *memstore.Snapshot) (*response, error)

// serve adapts a handler: it pins the current snapshot for the whole
// request and turns the handler's error into a problem.
func (a *API) serve(h handler) gin.HandlerFunc {
	return func(c *gin.Context) {
		s := a.store.Snapshot()
		if s == nil {
			c.Header("Retry-After", "1")
			a.writeProblem(c, &Problem{Code: CodeUnavailable, Detail: "the first data load has not finished; try again in a moment"})
			return
		}
		tm := a.timing(c)
		begun := tm.renderBegins()
		r, err := h(c, s)
		if err != nil {
			a.writeProblem(c, err)
			return
		}
		tm.rendered(begun, r)
		tm.setHeader(c)
		writeResponse(c, r)
	}
}

// snapKey is the cache key of parts answered from s: the snapshot's Serial
// (its Gen repeats across lineages), then the parts.
func snapKey(s *memstore.Snapshot, parts ...string) string {
	b := make([]byte, 0, 64)
	b = strconv.AppendUint(b, s.Serial(), 36)
	for _, p := range parts {
		b = append(b, 0)
		b = append(b, p...)
	}
	return string(b)
}

// listKey is the canonical cache key of a list query; the snapshots the
// page answers are its view's to say (listView).
func listKey(q memstore.ListQuery) string {
	b := make([]byte, 0, 64)
	b = append(b, 'l', 0, byte(q.Sort), boolByte(q.Desc), boolByte(q.HasCategory), byte(q.Category),
		boolByte(q.HasDominant), byte(q.Dominant), boolByte(q.HasRegion))
	b = append(b, q.Region...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(q.Limit), 36)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(q.Offset), 36)
	return string(b)
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

func (a *API) flags(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	q, err := listQuery(c.Request.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	return a.cache.list(q, s, a.swaps), nil
}

func (a *API) flag(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	if r, ok := a.details.detail(s, c.Param("slug"), a.cache); ok {
		return r, nil
	}
	return nil, errNotFound
}

func (a *API) trend(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	days, err := trendDays(c.Request.URL.RawQuery)
	if err != nil {
		return nil, err
	}
	slug := c.Param("slug")
	if s.Trends == nil {
		if _, _, ok := s.FlagBySlug(slug); !ok {
			return nil, errNotFound
		}
		c.Header("Retry-After", "5")
		return nil, &Problem{Code: CodeUnavailable, Detail: "the trend history is still loading after a start; try again in a few seconds"}
	}
	today := memstore.DayOf(a.now())
	d := a.trends
	st := trendStamp(s.Serial(), s.Trends.Version(), days, today)
	slot, r := d.look(slug, days, st)
	if r != nil {
		return r, nil
	}
	f, _, ok := s.FlagBySlug(slug)
	if !ok {
		return nil, errNotFound
	}
	return d.fill(slot, slug, st, source{f.Version(), st.history}, a.cache, func() string {
		return "trend\x00" + f.ID() + "\x00" + strconv.Itoa(days) + "\x00" + strconv.Itoa(int(today))
	}, func() []byte {
		return renderTrend(f, days, s.Trends.Of(f.ID(), today-int32(days-1), today))
	}), nil
}

func (a *API) categories(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	return a.cache.get(snapKey(s, "categories"), func() ([]byte, error) { return renderCategories(s.Categories()), nil })
}

func (a *API) regions(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	return a.cache.get(snapKey(s, "regions"), func() ([]byte, error) { return renderRegions(s.Regions()), nil })
}

func (a *API) stats(c *gin.Context, s *memstore.Snapshot) (*response, error) {
	return a.cache.get(snapKey(s, "stats"), func() ([]byte, error) { return renderStats(s.Stats()), nil })
}

func (a *API) search(c *gin.Context, s *memstore.Snapshot) (*response, *searchView, error) {
	r, err := searchQuery(c.Request.URL.RawQuery, a.searches.spellings.parse)
	if err != nil {
		return nil, nil, err
	}
	return a.searches.answer(s, &r, func(res *memstore.SearchResult) []byte {
		return renderSearch(r, res.Hits[:min(r.opt.Limit, len(res.Hits))], res.Total)
	})
}

// healthOK is /healthz's answer, the same for every request.
var healthOK = newResponse([]byte(`{"status":"ok"}`))

func (a *API) healthz(c *gin.Context) { writeResponse(c, healthOK) }

// openapiDoc serves the document built once in New, so its ETag and gzip
// form are computed once, not per request.
func (a *API) openapiDoc(c *gin.Context) { writeResponse(c, a.openapi) }
