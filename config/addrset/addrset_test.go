package addrset_test

import (
	"net/netip"
	"testing"

	"github.com/flagpole/flagpole/config/addrset"
)

func TestParse(t *testing.T) {
	got, err := addrset.Parse([]string{"10.0.0.0/8", " 192.0.2.7 ", "2001:db8::/32", "::ffff:10.1.1.1", ""})
	if err != nil {
		t.Fatal(err)
	}
	want := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"),
		netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("10.1.1.1/32")}
	if len(got) != len(want) {
		t.Fatalf("%v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("%d: %v, want %v", i, got[i], want[i])
		}
	}
	for _, bad := range []string{"10.0.0.0/33", "example.org", "10.0.0"} {
		if _, err := addrset.Parse([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestContains(t *testing.T) {
	s, err := addrset.Parse([]string{"10.0.0.0/8", "192.0.2.7"})
	if err != nil {
		t.Fatal(err)
	}
	for in, want := range map[string]bool{"10.1.2.3": true, "192.0.2.7": true, "192.0.2.8": false, "2001:db8::1": false} {
		if got := s.Contains(netip.MustParseAddr(in)); got != want {
			t.Errorf("Contains(%s) = %v, want %v", in, got, want)
		}
	}
	if (addrset.Set)(nil).Contains(netip.MustParseAddr("10.1.2.3")) {
		t.Error("the empty set contains an address")
	}
}
