package httpapi

import (
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flagpole/flagpole/memstore"
)

// parsedQuery is q as the index takes it (memstore.ParseQuery, whose
// rules bound a search's cost) and its canonical form, the key of its
// entry in the search cache.
type parsedQuery struct {
	q   memstore.Query
	key string // q.Key()
}

// spellings remembers the parsed query of each valid q seen lately. Both
// depend on q alone, and keying a query (four stems a word, a sort) costs
// more than the rest of a cached answer, so it is done once per spelling,
// not once per request. It keeps no answer, so it never goes stale; when
// its spellings pass spellingsMaxBytes it starts empty again.
type spellings struct {
	cur atomic.Pointer[spellingSet]
}

type spellingSet struct {
	m     sync.Map // q -> *parsedQuery
	bytes atomic.Int64
}

// spellingsMaxBytes bounds what spellings holds: about 7,000 queries of
// two words.
const spellingsMaxBytes = 2 << 20

func newSpellings() *spellings {
	sp := &spellings{}
	sp.cur.Store(&spellingSet{})
	return sp
}

// parse returns q's parsed query, or the 400 that says which rule of
// memstore.ParseQuery q breaks.
func (sp *spellings) parse(q string) (*parsedQuery, error) {
	if ledgerOff.spellings {
		return parseQuery(q)
	}
	set := sp.cur.Load()
	if p, ok := set.m.Load(q); ok {
		return p.(*parsedQuery), nil
	}
	p, err := parseQuery(q)
	if err != nil {
		return nil, err
	}
	if set.bytes.Add(int64(2*len(q)+2*len(p.key)+128)) > spellingsMaxBytes {
		sp.cur.CompareAndSwap(set, &spellingSet{})
		return p, nil
	}
	set.m.Store(strings.Clone(q), p)
	return p, nil
}

// parseQuery is q parsed and keyed, or the 400 that says which rule of
// memstore.ParseQuery q breaks.
func parseQuery(q string) (*parsedQuery, error) {
	pq, err := memstore.ParseQuery(q)
	if err != nil {
		return nil, invalidParam("q", "%s", err.Error())
	}
	// Key fills in the words' stems: from here on the query is only read,
	// by as many requests at once as spell it so.
	return &parsedQuery{q: pq, key: pq.Key()}, nil
}
