package memstore

import (
	"crypto/sha256"
	"testing"
	"time"
)

// OnSwap sees a snapshot before readers do, OnSwapped once they do; OnKeys
// sees each key set once it is in; cancelled hooks see nothing more.
func TestStoreHooks(t *testing.T) {
	var st Store
	s1, err := Build(nil, Change{Full: true, Flags: []FlagInput{changeFixture("a")}})
	if err != nil {
		t.Fatal(err)
	}
	var before, after []*Snapshot
	var keys []*KeySet
	cancelBefore := st.OnSwap(func(s *Snapshot) {
		if st.Snapshot() == s {
			t.Error("OnSwap saw the snapshot already in")
		}
		before = append(before, s)
	})
	cancelAfter := st.OnSwapped(func(s *Snapshot) {
		if st.Snapshot() != s {
			t.Error("OnSwapped saw the snapshot before it was in")
		}
		after = append(after, s)
	})
	cancelKeys := st.OnKeys(func(k *KeySet) {
		if st.Keys() != k {
			t.Error("OnKeys saw the key set before it was in")
		}
		keys = append(keys, k)
	})
	st.SetSnapshot(s1)
	ks := NewKeySet([][sha256.Size]byte{sha256.Sum256([]byte("secret"))}, []Key{{ID: "k1"}}, time.Now())
	st.SetKeys(ks)
	if len(before) != 1 || len(after) != 1 || before[0] != s1 || after[0] != s1 || len(keys) != 1 || keys[0] != ks {
		t.Fatalf("hooks saw %v, %v, %v", before, after, keys)
	}
	cancelBefore()
	cancelAfter()
	cancelKeys()
	st.SetSnapshot(s1)
	st.SetKeys(NewKeySet(nil, nil, time.Now()))
	if len(before) != 1 || len(after) != 1 || len(keys) != 1 {
		t.Fatalf("cancelled hooks were called: %d, %d, %d", len(before), len(after), len(keys))
	}
}

func TestKeySetHasID(t *testing.T) {
	ks := NewKeySet([][sha256.Size]byte{sha256.Sum256([]byte("a")), sha256.Sum256([]byte("b"))},
		[]Key{{ID: "k1"}, {ID: "k2", Limit: 5}}, time.Now())
	for id, want := range map[string]bool{"k1": true, "k2": true, "k3": false, "": false} {
		if got := ks.HasID(id); got != want {
			t.Errorf("HasID(%q) = %v, want %v", id, got, want)
		}
	}
}
