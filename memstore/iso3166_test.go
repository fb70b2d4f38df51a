package memstore

import "testing"

func TestISOAlpha2List(t *testing.T) {
	if got := len(isoAlpha2); got != 249 {
		t.Fatalf("isoAlpha2 has %d entries, want 249", got)
	}
	for i, c := range isoAlpha2 {
		if len(c) != 2 || c[0] < 'A' || c[0] > 'Z' || c[1] < 'A' || c[1] > 'Z' {
			t.Errorf("isoAlpha2[%d] = %q, want two upper-case ASCII letters", i, c)
		}
		if i > 0 {
			switch prev := isoAlpha2[i-1]; {
			case prev == c:
				t.Errorf("isoAlpha2[%d] = %q is a duplicate", i, c)
			case prev > c:
				t.Errorf("isoAlpha2 not sorted: %q before %q", prev, c)
			}
		}
	}
}

func TestISOIsAssignedCountry(t *testing.T) {
	cases := []struct {
		code string
		want bool
	}{
		{"TR", true}, {"DE", true}, {"ES", true}, {"US", true}, {"GB", true},
		{"AD", true}, {"ZW", true}, {"SS", true}, {"CW", true}, {"SX", true},
		{"BQ", true}, {"BL", true}, {"MF", true}, {"EH", true}, {"PS", true}, {"TW", true},
		{"XK", false}, {"UK", false}, {"XX", false}, {"ZZ", false}, {"AA", false},
		{"AN", false}, {"EU", false}, {"UN", false}, {"QM", false}, {"QZ", false},
		{"tr", false}, {"Tr", false}, {"", false}, {"T", false}, {"TUR", false},
	}
	for _, c := range cases {
		if got := IsAssignedCountry(c.code); got != c.want {
			t.Errorf("IsAssignedCountry(%q) = %v, want %v", c.code, got, c.want)
		}
	}
}

func TestISOIsAssignedCountryNoAlloc(t *testing.T) {
	codes := []string{"TR", "XK", "ZW", "tr", ""}
	allocs := testing.AllocsPerRun(100, func() {
		for _, c := range codes {
			IsAssignedCountry(c)
		}
	})
	if allocs != 0 {
		t.Errorf("IsAssignedCountry allocates %v times per run, want 0", allocs)
	}
}
