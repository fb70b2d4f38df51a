package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"testing"
)

// The assets' bodies are read from the binary on first use, not held from
// the start: fingerprinted all the same, and the same bytes once read.
func TestUIAssetsReadOnFirstUse(t *testing.T) {
	site, err := buildUI(uiFiles)
	if err != nil {
		t.Fatal(err)
	}
	for p, a := range site.assets {
		if a.p != nil {
			t.Errorf("%s is held before it is asked for", p)
		}
	}
	for _, name := range []string{"ui/app.js", "ui/app.css"} {
		a := site.assets["/"+name]
		want, err := fs.ReadFile(uiFiles, name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(want)
		p := a.payload()
		if !bytes.Equal(p.body, want) || p != a.payload() || p.etag[0] != `"`+a.version+`"` || a.version != hex.EncodeToString(sum[:8]) {
			t.Errorf("%s: %d bytes of %d, read again %v, ETag %s, version %s", name, len(p.body), len(want), p != a.payload(), p.etag[0], a.version)
		}
	}
	if site.assets["/ui/app.js"].p == nil || site.assets["/ui/chart.js"].p != nil {
		t.Error("reading one asset read another, or did not keep its own")
	}
}
