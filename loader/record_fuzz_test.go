package loader

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/flagpole/flagpole/memstore"
)

// importSeeds are lines of the import format: good ones, and the bad
// shapes a hand-edited or truncated file has.
var importSeeds = []string{
	`{"id":"f1","slug":"bus-driver","category":"SOCIAL","region":"tr","text":{"tr":"Otobüs şoförüyle","en":"Is friends with the bus driver","de":"Ist mit dem Busfahrer befreundet","es":"Es amigo del conductor"},"votes":{"red":3,"green":4},"createdAt":"2026-05-25T10:11:12.345Z","contexts":["WORK"],"description":{"en":"why"},"snapshots":[{"at":"2026-05-24T00:00:00.000Z","red":1,"green":2}]}`,
	`{"id":"f2","slug":"x","category":"character","region":null,"text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":0,"green":0},"status":"PENDING"}`,
	`{"id":"f3","slug":"x","category":"character","text":{"tr":"a","en":"b","de":"c"},"votes":{"red":0,"green":0}}`,
	`{"id":"f4","slug":"bad slug","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":1}}`,
	`{"id":"f5","slug":"y","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":-1,"green":1}}`,
	`{"id":"f6","slug":"y","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1e400,"green":1}}`,
	`{"id":"f7","slug":"y","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":1},"createdAt":"yesterday"}`,
	`{"id":"f8","slug":"y","category":"SOCIAL","region":"XX","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":1}}`,
	`{"id":"f9"} {"id":"f10"}`,
	`{"id":"f11","slug":"y","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":1},"contexts":["NOPE"]}`,
	`{"id":"f12","slug":"y","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":1},"snapshots":[{"at":"2026-05-24","red":1}]}`,
	`[1,2,3]`, `null`, `{"id":`, "\xff\xfe{}", `{"id":"` + strings.Repeat("a", 65) + `"}`,
}

// FuzzParseRecord: any line is parsed or refused, never a panic; a line it
// accepts is a valid flag, and writing that flag back in the format (as
// export does) reads as the same flag.
//
//	go test ./loader -run '^$' -fuzz FuzzParseRecord -fuzztime 20s
func FuzzParseRecord(f *testing.F) {
	for _, s := range importSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := parseRecord(line)
		if err != nil {
			if r != nil || err.Error() == "" {
				t.Fatalf("%q: a refusal must say why and return no flag: %v", line, err)
			}
			return
		}
		if r.ID == "" || len(r.ID) > 64 || !slugPattern.MatchString(r.Slug) || r.Red < 0 || r.Green < 0 ||
			r.Red > MaxVotes || r.Green > MaxVotes || !utf8.Valid(line) {
			t.Fatalf("%q: accepted an invalid flag %+v", line, r.FlagInput)
		}
		if _, ok := memstore.ParseCategory(r.Category); !ok {
			t.Fatalf("%q: accepted category %q", line, r.Category)
		}
		for l, text := range r.Text {
			if strings.TrimSpace(text) == "" {
				t.Fatalf("%q: accepted an empty text.%s", line, memstore.LangCodes[l])
			}
		}
		again, err := json.Marshal(record(r))
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		back, err := parseRecord(again)
		if err != nil {
			t.Fatalf("%q: its export %s does not import: %v", line, again, err)
		}
		r.CreatedGiven = true // an export always writes createdAt
		if !reflect.DeepEqual(back, r) {
			t.Fatalf("%q: exported and imported again as %+v, was %+v", line, back, r)
		}
	})
}
