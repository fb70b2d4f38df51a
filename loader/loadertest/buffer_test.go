package loadertest

import (
	"strings"
	"sync"
	"testing"
)

// TestBuffer: writes from several goroutines all arrive, whole, while
// another reads (run with -race).
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if got := b.String(); got != strings.Repeat("line\n", 800) {
		t.Errorf("got %d bytes, want %d", len(got), 800*5)
	}
}
