package main

import (
	"errors"
	"regexp"
	"strings"
	"testing"

	"github.com/flagpole/flagpole/loader"
	"github.com/flagpole/flagpole/loader/loadertest"
)

var keyPattern = regexp.MustCompile(`^grf_[A-Za-z0-9]{32}$`)

// createdID is the key id `keys create` names on standard error.
var createdID = regexp.MustCompile(`created key (\S+)`)

// createKey runs `keys create` with extra flags and returns the secret and
// the key's id.
func createKey(t *testing.T, db string, extra ...string) (secret, id string) {
	t.Helper()
	r := runCLI(t, noEnv, nil, append([]string{"keys", "create", "--db", db}, extra...)...)
	if r.err != nil {
		t.Fatalf("keys create: %v\nstderr:\n%s", r.err, r.stderr)
	}
	got := strings.TrimSuffix(r.stdout, "\n")
	if strings.Contains(got, "\n") || !strings.HasSuffix(r.stdout, "\n") {
		t.Fatalf("keys create: stdout = %q, want exactly one line", r.stdout)
	}
	if !keyPattern.MatchString(got) {
		t.Fatalf("keys create: stdout = %q, want a key matching %s", got, keyPattern)
	}
	if strings.Contains(r.stderr, got) {
		t.Errorf("keys create: stderr shows the key too:\n%s", r.stderr)
	}
	m := createdID.FindStringSubmatch(r.stderr)
	if m == nil {
		t.Fatalf("keys create: stderr = %q, want it to name the new key's id", r.stderr)
	}
	return got, m[1]
}

// keyRow is one key of `keys list`.
type keyRow struct {
	id, prefix, limit, revoked string
}

// listKeys runs `keys list` and parses its table: ID PREFIX NAME USER
// LIMIT CREATED REVOKED, where USER may be blank.
func listKeys(t *testing.T, db string) (map[string]keyRow, string) {
	t.Helper()
	out := mustRun(t, "keys", "list", "--db", db)
	ls := lines(out)
	if len(ls) == 0 || !strings.HasPrefix(ls[0], "ID") {
		t.Fatalf("keys list: got %q, want a header line first", out)
	}
	rows := map[string]keyRow{}
	for _, l := range ls[1:] {
		f := strings.Fields(l)
		if len(f) < 6 {
			t.Fatalf("keys list: line %q has too few columns", l)
		}
		rows[f[0]] = keyRow{id: f[0], prefix: f[1], limit: f[len(f)-3], revoked: f[len(f)-1]}
	}
	return rows, out
}

func TestKeysCreateListRevoke(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)

	secret, id := createKey(t, db, "--name", "x")
	limited, limitedID := createKey(t, db, "--name", "limited", "--limit", "5")
	if secret == limited {
		t.Fatalf("two keys are the same secret %q", secret)
	}

	rows, out := listKeys(t, db)
	if len(rows) != 2 {
		t.Fatalf("keys list: got %d keys, want 2:\n%s", len(rows), out)
	}
	for _, s := range []string{secret, limited} {
		// The prefix (grf_ and four characters) is shown; nothing longer.
		if strings.Contains(out, s[:9]) {
			t.Errorf("keys list shows more of the key %s than its prefix:\n%s", s[:9], out)
		}
	}
	for _, tc := range []struct {
		id, secret, limit string
	}{{id, secret, "default"}, {limitedID, limited, "5"}} {
		row, ok := rows[tc.id]
		if !ok {
			t.Errorf("keys list: no row for id %s:\n%s", tc.id, out)
			continue
		}
		if got, want := strings.TrimSuffix(row.prefix, "…"), tc.secret[:8]; got != want {
			t.Errorf("keys list: prefix of %s = %q, want %q", tc.id, got, want)
		}
		if row.limit != tc.limit {
			t.Errorf("keys list: limit of %s = %q, want %q", tc.id, row.limit, tc.limit)
		}
		if row.revoked != "-" {
			t.Errorf("keys list: %s revoked = %q before revocation, want -", tc.id, row.revoked)
		}
	}

	mustRun(t, "keys", "revoke", "--db", db, id)
	rows, out = listKeys(t, db)
	if got := rows[id].revoked; got == "-" || got == "" {
		t.Errorf("keys list after revoke: %s revoked = %q, want a time:\n%s", id, got, out)
	}
	if got := rows[limitedID].revoked; got != "-" {
		t.Errorf("keys list after revoke: %s (not revoked) shows %q, want -", limitedID, got)
	}
	// Revoking twice is fine and keeps the first time.
	first := rows[id].revoked
	mustRun(t, "keys", "revoke", "--db", db, id)
	if rows, _ = listKeys(t, db); rows[id].revoked != first {
		t.Errorf("revoking again changed the revocation time from %s to %s", first, rows[id].revoked)
	}

	r := runCLI(t, noEnv, nil, "keys", "revoke", "--db", db, "key_doesnotexist")
	if r.err == nil {
		t.Fatal("keys revoke of an unknown id: got nil error, want one")
	}
	if !errors.Is(r.err, loader.ErrNotFound) {
		t.Errorf("keys revoke of an unknown id: got %v, want loader.ErrNotFound", r.err)
	}
}

func TestKeysCreateOnEverySource(t *testing.T) {
	t.Parallel()
	for _, d := range loadertest.Sources(t) {
		t.Run(string(d), func(t *testing.T) {
			db := loadertest.URL(t, d)
			secret, id := createKey(t, db, "--name", "ci", "--limit", "7")
			rows, out := listKeys(t, db)
			if row := rows[id]; row.limit != "7" || strings.TrimSuffix(row.prefix, "…") != secret[:8] {
				t.Errorf("keys list: got %+v, want prefix %s limit 7:\n%s", row, secret[:8], out)
			}
			if strings.Contains(out, secret) {
				t.Errorf("keys list shows the whole key:\n%s", out)
			}
			mustRun(t, "keys", "revoke", "--db", db, id)
			if rows, _ = listKeys(t, db); rows[id].revoked == "-" {
				t.Errorf("keys list: %s is not shown revoked", id)
			}
		})
	}
}

func TestKeysErrors(t *testing.T) {
	t.Parallel()
	db := loadertest.URL(t, loader.SQLite)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"no subcommand", []string{"keys"}},
		{"unknown subcommand", []string{"keys", "rotate", "--db", db}},
		{"create without --name", []string{"keys", "create", "--db", db}},
		{"create with an empty --name", []string{"keys", "create", "--db", db, "--name", ""}},
		{"create with a name of 201 characters", []string{"keys", "create", "--db", db, "--name", strings.Repeat("ü", 201)}},
		{"create with a tab in --name", []string{"keys", "create", "--db", db, "--name", "a\tb"}},
		{"create with a newline in --name", []string{"keys", "create", "--db", db, "--name", "a\nb"}},
		{"create with a right-to-left override in --name", []string{"keys", "create", "--db", db, "--name", "a\u202eb"}},
		{"create with a zero-width space in --name", []string{"keys", "create", "--db", db, "--name", "a\u200bb"}},
		{"create with invalid UTF-8 in --name", []string{"keys", "create", "--db", db, "--name", "a\xffb"}},
		{"create with a negative --limit", []string{"keys", "create", "--db", db, "--name", "x", "--limit", "-1"}},
		{"create with a --limit that is not a number", []string{"keys", "create", "--db", db, "--name", "x", "--limit", "many"}},
		{"create for an unknown --user", []string{"keys", "create", "--db", db, "--name", "x", "--user", "usr_nobody"}},
		{"create with an unknown flag", []string{"keys", "create", "--db", db, "--name", "x", "--colour", "red"}},
		{"revoke without an id", []string{"keys", "revoke", "--db", db}},
		{"revoke with two ids", []string{"keys", "revoke", "--db", db, "key_a", "key_b"}},
		{"revoke an unknown id", []string{"keys", "revoke", "--db", db, "key_nope"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runCLI(t, noEnv, nil, tc.args...)
			if r.err == nil {
				t.Fatalf("flagpole %s: got nil error, want one", strings.Join(tc.args, " "))
			}
			if r.stdout != "" {
				t.Errorf("flagpole %s: stdout = %q, want nothing on failure", strings.Join(tc.args, " "), r.stdout)
			}
		})
	}
	// None of the failed creates left a key behind.
	if rows, out := listKeys(t, db); len(rows) != 0 {
		t.Errorf("keys list after failed creates: got %d keys, want 0:\n%s", len(rows), out)
	}
	// The longest name is taken and listed whole.
	longest := strings.Repeat("ü", 200)
	_, id := createKey(t, db, "--name", longest)
	if rows, out := listKeys(t, db); len(rows) != 1 || !strings.Contains(out, id) || !strings.Contains(out, longest) {
		t.Errorf("keys list after a name of 200 characters: got\n%s", out)
	}
}
