package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"
)

// TestDuplicateAuthorization: two Authorization headers are a 400 that
// names the header, whatever they hold.
func TestDuplicateAuthorization(t *testing.T) {
	e := newEnv(t, "sqlite", fixtureLines())
	for _, pair := range [][2]string{{"Bearer " + e.key, "Bearer grf_other"}, {"Bearer grf_other", "Bearer " + e.key},
		{"Bearer " + e.key, "Bearer " + e.key}} {
		for _, path := range []string{"/api/public/flags", "/api/public/rate_limit"} {
			req, _ := http.NewRequest(http.MethodGet, e.srv.URL+path, nil)
			req.Header["Authorization"] = pair[:]
			resp, err := rawTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			e.validate(req, resp, body)
			var m map[string]any
			json.Unmarshal(body, &m)
			if resp.StatusCode != 400 || m["code"] != "invalid_parameter" || m["param"] != "Authorization" {
				t.Errorf("%s with two keys: %d %s", path, resp.StatusCode, body)
			}
			if resp.Header.Get("X-RateLimit-Limit") != "" {
				t.Errorf("%s: two keys spent a budget", path)
			}
		}
	}
}
