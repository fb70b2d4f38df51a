package loader_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

// FuzzImportLine puts one arbitrary line between two good ones and imports
// the three into SQLite: it is imported, or refused with a *LineError
// that names its line (2, or later when the input holds newlines) and
// leaves the database as it was. Never a panic.
//
//	go test ./loader -run '^$' -fuzz FuzzImportLine -fuzztime 20s
func FuzzImportLine(f *testing.F) {
	for _, s := range []string{
		`{"id":"fz","slug":"fz","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":2}}`,
		`{"id":"fz","slug":"good-1","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":2}}`,
		`{"id":"fz","slug":"fz","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c"},"votes":{"red":1,"green":2}}`,
		`{"id":"fz","slug":"fz","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":-5,"green":2}}`,
		"{\"id\":\"fz\"}\n{\"id\":\"fz2\"}", "\xef\xbb\xbf{}", `not json`, ``, `   `, strings.Repeat("{", 1000),
	} {
		f.Add(s)
	}
	db, _ := loadertest.Open(f, loader.SQLite)
	good := func(n int) string {
		return fmt.Sprintf(`{"id":"good-%d","slug":"good-%d","category":"SOCIAL","text":{"tr":"a","en":"b","de":"c","es":"d"},"votes":{"red":1,"green":2}}`, n, n)
	}
	ctx := context.Background()
	count := func(t *testing.T) int {
		var n int
		if err := db.Get(&n, "SELECT count(*) FROM flags"); err != nil {
			t.Fatal(err)
		}
		return n
	}
	f.Fuzz(func(t *testing.T, line string) {
		before := count(t)
		input := good(1) + "\n" + line + "\n" + good(2) + "\n"
		_, err := db.Import(ctx, strings.NewReader(input), nil)
		if err == nil {
			return
		}
		var le *loader.LineError
		if !errors.As(err, &le) {
			t.Fatalf("%q: the error does not name a line: %v", line, err)
		}
		if last := 2 + strings.Count(line, "\n") + strings.Count(line, "\r"); le.Line < 2 || le.Line > last {
			t.Fatalf("%q: the error names line %d, want 2 to %d: %v", line, le.Line, last, err)
		}
		if !strings.HasPrefix(err.Error(), fmt.Sprintf("line %d: ", le.Line)) {
			t.Fatalf("%q: %q does not start with its line", line, err)
		}
		if after := count(t); after != before {
			t.Fatalf("%q: a refused import changed the flags from %d to %d", line, before, after)
		}
	})
}
