package loader_test

import (
	"testing"

	"github.com/flagpole/flagpole/loader"
)

// Redact hides a password and keeps the rest of the URL, so that a log or
// an error still says which database it means.
func TestRedact(t *testing.T) {
	for raw, want := range map[string]string{
		"postgres://u:s3cret@db.example:5432/flags?sslmode=disable": "postgres://u:xxxxx@db.example:5432/flags?sslmode=disable",
		"postgres://u@db.example/flags":                             "postgres://u@db.example/flags",
		"postgres://u:s3cret%zz@db.example/flags":                   "postgres://u:xxxxx@db.example/flags",
		"postgres://u:123#s3cret@db.example/flags":                  "postgres://u:xxxxx@db.example/flags",
		"postgres://db.example/flags?user=u&password=s3cret&x=1":    "postgres://db.example/flags?user=u&password=xxxxx&x=1",
		"host=db.example password='s3 cret' dbname=flags":           "host=db.example password=xxxxx dbname=flags",
		"host=db.example sslpassword=s3cret dbname=flags":           "host=db.example sslpassword=xxxxx dbname=flags",
		"sqlite:flagpole.db":                                        "sqlite:flagpole.db",
	} {
		if got := loader.Redact(raw); got != want {
			t.Errorf("Redact(%q) = %q, want %q", raw, got, want)
		}
	}
}
