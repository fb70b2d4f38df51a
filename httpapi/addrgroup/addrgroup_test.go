package addrgroup_test

import (
	"net/netip"
	"testing"

	"github.com/flagpole/flagpole/httpapi/addrgroup"
)

func TestOf(t *testing.T) {
	for in, want := range map[string]string{
		"192.0.2.1":                 "192.0.2.1",
		"::ffff:192.0.2.1":          "192.0.2.1",
		"2001:db8:1:2:3:4:5:6":      "2001:db8:1:2::",
		"2001:db8:1:2::":            "2001:db8:1:2::",
		"fe80::1%eth0":              "fe80::",
		"::1":                       "::",
		"2001:db8:ffff:ffff:ffff::": "2001:db8:ffff:ffff::",
	} {
		if got := addrgroup.Of(netip.MustParseAddr(in)); got != netip.MustParseAddr(want) {
			t.Errorf("Of(%s) = %s, want %s", in, got, want)
		}
	}
	if got := addrgroup.Of(netip.Addr{}); got.IsValid() {
		t.Errorf("Of(zero) = %s, want the zero Addr", got)
	}
}
