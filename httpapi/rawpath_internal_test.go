package httpapi

import "testing"

// decodeUnreserved decodes the escapes of unreserved characters, in
// either case of hex, and leaves every other escape, and every percent
// sign that starts none, as sent.
func TestDecodeUnreserved(t *testing.T) {
	for in, want := range map[string]string{
		"/api/public/flags":         "/api/public/flags",
		"/api/public/fl%61gs":       "/api/public/flags",
		"/%2d%2E%5f%7E%41%7a%30%39": "/-._~Az09",
		"/flag/a%2Fb%2f%3F%25%20":   "/flag/a%2Fb%2f%3F%25%20",
		"/a%25%61":                  "/a%25a",
		"/a%%61":                    "/a%a",
		"/a%6":                      "/a%6",
		"/a%":                       "/a%",
		"/a%zz%62":                  "/a%zzb",
		"/%C3%A9":                   "/%C3%A9",
	} {
		if got := decodeUnreserved(in); got != want {
			t.Errorf("decodeUnreserved(%q) = %q, want %q", in, got, want)
		}
	}
}
