package memstore

import (
	"crypto/sha256"
	"fmt"
	"hash/maphash"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"
)

// keySetOf is a key set of n keys, secret i being "grf_secret<i>" of key
// "k<i>" with limit i.
func keySetOf(n int) (*KeySet, []string) {
	hashes := make([][sha256.Size]byte, n)
	keys := make([]Key, n)
	secrets := make([]string, n)
	for i := range n {
		secrets[i] = fmt.Sprintf("grf_secret%032d", i)
		hashes[i] = sha256.Sum256([]byte(secrets[i]))
		keys[i] = Key{ID: fmt.Sprintf("k%d", i), Limit: i}
	}
	return NewKeySet(hashes, keys, time.Now()), secrets
}

// seenCount is how many secrets ks's table holds; it fails t if one of
// them is not the secret of the key it names.
func seenCount(t *testing.T, ks *KeySet, secrets []string) int {
	t.Helper()
	n := 0
	for i := range ks.seen {
		if e := ks.seen[i].e.Load(); e != nil {
			n++
			if h := ks.seen[i].hash.Load(); h != e.hash {
				t.Errorf("slot %d holds an entry of hash %x under hash %x: a lookup would pass it", i, e.hash, h)
			}
			var j int
			if _, err := fmt.Sscanf(e.key.ID, "k%d", &j); err != nil || secrets[j] != e.secret {
				t.Errorf("the table holds %q for key %s", e.secret, e.key.ID)
			}
		}
	}
	return n
}

// seenWant is how many of secrets ks's table can hold: each set of slots
// holds up to seenWays of those whose hash chooses it.
func seenWant(ks *KeySet, secrets []string) int {
	per := map[uint64]int{}
	for _, s := range secrets {
		per[maphash.String(ks.seed, s)>>ks.shift]++
	}
	n := 0
	for _, c := range per {
		n += min(c, seenWays)
	}
	return n
}

// Every key is found by its secret, the first time and from the table
// after, and nothing else is found: not a secret's prefix, extension or
// one-byte change, not the empty string.
func TestKeySetLookup(t *testing.T) {
	ks, secrets := keySetOf(300)
	for round := range 3 {
		for i, s := range secrets {
			k, ok := ks.Lookup(s)
			if !ok || k.ID != fmt.Sprintf("k%d", i) || k.Limit != i {
				t.Fatalf("round %d: Lookup(%q) = %+v, %v", round, s, k, ok)
			}
		}
		if n, want := seenCount(t, ks, secrets), seenWant(ks, secrets); n != want || want < len(secrets)*9/10 {
			t.Fatalf("round %d: the table holds %d secrets, want %d of %d", round, n, want, len(secrets))
		}
	}
	s := secrets[7]
	for _, bad := range []string{"", s[:len(s)-1], s + "0", s[:5] + "X" + s[6:], "grf_secret"} {
		if k, ok := ks.Lookup(bad); ok {
			t.Errorf("Lookup(%q) = %+v, want no key", bad, k)
		}
	}
	if n, want := seenCount(t, ks, secrets), seenWant(ks, secrets); n != want {
		t.Errorf("after unknown secrets the table holds %d, want %d", n, want)
	}
}

// A secret found in the table is compared whole, not trusted for its
// hash: an entry whose hash is another token's does not admit that token.
func TestKeySetLookupComparesSecret(t *testing.T) {
	ks, secrets := keySetOf(10)
	const evil = "grf_evil"
	h := maphash.String(ks.seed, evil)
	set := ks.seen[(h>>ks.shift)*seenWays:][:seenWays]
	set[0].e.Store(&seenKey{hash: h, secret: secrets[3], key: Key{ID: "k3"}})
	set[0].hash.Store(h)
	if k, ok := ks.Lookup(evil); ok {
		t.Fatalf("Lookup(%q) = %+v through an entry of another secret with its hash", evil, k)
	}
	if !sameSecret(secrets[3], secrets[3]) || sameSecret(secrets[3], secrets[4]) || sameSecret("ab", "abc") {
		t.Fatal("sameSecret is not string equality")
	}
}

// The table is bounded by its size whatever the number of keys, and keys
// that find no free slot are still found.
func TestKeySetTableBounded(t *testing.T) {
	ks, secrets := keySetOf(20_000)
	if len(ks.seen) != 8192 {
		t.Fatalf("%d slots for 20,000 keys, want the most, 8192", len(ks.seen))
	}
	for round := range 2 {
		for i, s := range secrets {
			if k, ok := ks.Lookup(s); !ok || k.Limit != i {
				t.Fatalf("round %d: Lookup(%q) = %+v, %v", round, s, k, ok)
			}
		}
	}
	if n, want := seenCount(t, ks, secrets), seenWant(ks, secrets); n != want || n > len(ks.seen) {
		t.Fatalf("the table holds %d secrets in %d slots, want %d", n, len(ks.seen), want)
	}
	small, _ := keySetOf(3)
	if len(small.seen) != 64 {
		t.Fatalf("%d slots for 3 keys, want the least, 64", len(small.seen))
	}
}

// A key found in the table costs no allocation.
func TestKeySetLookupAllocatesNothing(t *testing.T) {
	ks, secrets := keySetOf(100)
	ks.Lookup(secrets[1])
	if n := testing.AllocsPerRun(100, func() { ks.Lookup(secrets[1]) }); n != 0 {
		t.Fatalf("a seen key's lookup allocates %v times", n)
	}
}

// Lookups from many goroutines at once agree and fill the table once.
func TestKeySetLookupConcurrent(t *testing.T) {
	ks, secrets := keySetOf(500)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range 5 {
				for i := range secrets {
					j := (i*7 + g*31 + r) % len(secrets)
					if k, ok := ks.Lookup(secrets[j]); !ok || k.Limit != j {
						t.Errorf("Lookup(%q) = %+v, %v", secrets[j], k, ok)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if n, want := seenCount(t, ks, secrets), seenWant(ks, secrets); n != want {
		t.Fatalf("the table holds %d secrets, want %d (each once)", n, want)
	}
}

// A seen entry holds the secret in its own bytes when it fits, else a
// copy: either way the table answers the key as it is on file, the first
// time and after; and the key it answers is the set's own, sharing no
// memory with the entry (whoever keeps its id keeps no secret alive).
func TestKeySetSeenEntryText(t *testing.T) {
	for _, secretLen := range []int{1, 36, 64, 65, 200} {
		secret := strings.Repeat("s", secretLen)
		id := fmt.Sprintf("key_%d", secretLen)
		ks := NewKeySet([][sha256.Size]byte{sha256.Sum256([]byte(secret))}, []Key{{ID: id, Limit: secretLen}}, time.Now())
		for round := range 3 {
			k, ok := ks.Lookup(secret)
			if !ok || k.ID != id || k.Limit != secretLen {
				t.Fatalf("secret of %d bytes, round %d: Lookup = %+v, %v", secretLen, round, k, ok)
			}
			if unsafe.StringData(k.ID) != unsafe.StringData(id) {
				t.Fatalf("secret of %d bytes, round %d: the key's id is not the set's own string", secretLen, round)
			}
		}
		e := newSeenKey(1, secret, Key{ID: id})
		if e.secret != secret || e.key.ID != id {
			t.Fatalf("secret of %d bytes: entry holds %q, %q", secretLen, e.secret, e.key.ID)
		}
		inText := unsafe.StringData(e.secret) == &e.text[0]
		if fits := secretLen <= len(e.text); inText != fits {
			t.Errorf("secret of %d bytes: the secret in the entry's own bytes: %v, want %v", secretLen, inText, fits)
		}
	}
}
