package loader

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"
)

// ErrNotFound is returned when a named row does not exist.
var ErrNotFound = errors.New("not found")

// APIKey is an API key as the operator sees it: never the secret.
type APIKey struct {
	ID        string
	UserID    string
	Name      string
	Prefix    string
	Limit     int // 0: the service default
	CreatedAt time.Time
	RevokedAt *time.Time
}

const alnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// randomString draws n characters of alphabet from crypto/rand, without
// modulo bias.
func randomString(alphabet string, n int) string {
	out := make([]byte, n)
	limit := 256 - 256%len(alphabet)
	var buf [64]byte
	for i := 0; i < n; {
		rand.Read(buf[:])
		for _, b := range buf {
			if int(b) < limit && i < n {
				out[i] = alphabet[int(b)%len(alphabet)]
				i++
			}
		}
	}
	return string(out)
}

// HashKey is the hex SHA-256 of a key, the only form the database keeps.
func HashKey(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateKey makes a new key, stores its hash and returns the secret, which
// is never stored and cannot be shown again. userID may be empty; when set
// it must name an existing user. limit 0 means the service default.
func (db *DB) CreateKey(ctx context.Context, name, userID string, limit int) (string, APIKey, error) {
	if name == "" {
		return "", APIKey{}, errors.New("create key: a name is required")
	}
	if limit < 0 {
		return "", APIKey{}, errors.New("create key: the limit must be positive")
	}
	secret := "grf_" + randomString(alnum, 32)
	k := APIKey{ID: "key_" + randomString("abcdefghijklmnopqrstuvwxyz0123456789", 12), UserID: userID,
		Name: name, Prefix: secret[:8], Limit: limit, CreatedAt: time.Now().UTC().Truncate(time.Millisecond)}
	var user, lim any
	if userID != "" {
		var n int
		if err := db.GetContext(ctx, &n, db.Rebind("SELECT count(*) FROM users WHERE id = ?"), userID); err != nil {
			return "", APIKey{}, fmt.Errorf("create key: %w", err)
		}
		if n == 0 {
			return "", APIKey{}, fmt.Errorf("create key: no user %q", userID)
		}
		user = userID
	}
	if limit > 0 {
		lim = limit
	}
	_, err := db.ExecContext(ctx, db.Rebind("INSERT INTO api_keys (id, user_id, name, key_hash, prefix, rate_limit, created_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, "+tsParam(db.Dialect)+")"), k.ID, user, name, HashKey(secret), k.Prefix, lim, tsText(k.CreatedAt))
	if err != nil {
		return "", APIKey{}, fmt.Errorf("create key: %w", err)
	}
	return secret, k, nil
}

// ListKeys lists every key, revoked ones included, oldest first.
func (db *DB) ListKeys(ctx context.Context) ([]APIKey, error) {
	rows, err := db.QueryContext(ctx, "SELECT id, COALESCE(user_id, ''), name, prefix, COALESCE(rate_limit, 0), "+
		msExpr(db.Dialect, "created_at")+", "+msExpr(db.Dialect, "revoked_at")+" FROM api_keys ORDER BY created_at, id")
	if err != nil {
		return nil, fmt.Errorf("list keys: %w", err)
	}
	defer rows.Close()
	var out []APIKey
	for rows.Next() {
		var k APIKey
		var created int64
		var revoked sql.NullInt64
		if err := rows.Scan(&k.ID, &k.UserID, &k.Name, &k.Prefix, &k.Limit, &created, &revoked); err != nil {
			return nil, fmt.Errorf("list keys: %w", err)
		}
		k.CreatedAt = time.UnixMilli(created).UTC()
		if revoked.Valid {
			t := time.UnixMilli(revoked.Int64).UTC()
			k.RevokedAt = &t
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

// RevokeKey marks a key revoked; every instance refuses it after its next
// key load. Revoking a revoked key keeps the first revocation time.
func (db *DB) RevokeKey(ctx context.Context, id string) error {
	res, err := db.ExecContext(ctx, db.Rebind(
		"UPDATE api_keys SET revoked_at = COALESCE(revoked_at, "+tsParam(db.Dialect)+") WHERE id = ?"),
		tsText(time.Now()), id)
	if err != nil {
		return fmt.Errorf("revoke key: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("revoke key %q: %w", id, ErrNotFound)
	}
	return nil
}

// ActiveKeysNamed lists the keys not revoked that are called name, oldest
// first: a name is a label for people, so a second key of the same name is
// allowed (rotation), and the command line warns of it.
func (db *DB) ActiveKeysNamed(ctx context.Context, name string) ([]APIKey, error) {
	keys, err := db.ListKeys(ctx)
	if err != nil {
		return nil, err
	}
	var out []APIKey
	for _, k := range keys {
		if k.Name == name && k.RevokedAt == nil {
			out = append(out, k)
		}
	}
	return out, nil
}
