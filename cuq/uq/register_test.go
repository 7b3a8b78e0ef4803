package uq_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/cuqgnn/cuqgnn/cuq/uq"
)

func TestRegisterPostHoc(t *testing.T) {
	m, err := uq.RegisterPostHoc("TEST_SCORE_2")
	if err != nil {
		t.Fatal(err)
	}
	if m.String() != "TEST_SCORE_2" || !slices.Contains(uq.PostHocMeasures, m) {
		t.Fatalf("registered %v, post-hoc measures %v", m, uq.PostHocMeasures)
	}
	for _, s := range []string{"TEST_SCORE_2", "test_score_2", "testscore2"} {
		if got, err := uq.ParseMeasure(s); err != nil || got != m {
			t.Errorf("ParseMeasure(%q) = %v, %v", s, got, err)
		}
	}
	if slices.Contains(uq.AllMeasures, m) || slices.Contains(uq.CredalMeasures, m) || m.ReferenceKey() != "" {
		t.Errorf("%v is listed with the paper's or credal measures, or has a reference key", m)
	}
	if _, err := uq.ParseMeasure("nope"); err == nil || !strings.Contains(err.Error(), "GEBM, TEST_SCORE_2 or a reference key") {
		t.Errorf("unknown measure: error %v", err)
	}
	for _, tc := range []struct{ name, want string }{
		{"", "want upper-case letters"},
		{"max_logit", "want upper-case letters"},
		{"2SCORE", "want upper-case letters"},
		{"_SCORE", "want upper-case letters"},
		{"MAX-LOGIT", "want upper-case letters"},
		{"TEST_SCORE_2", `"TEST_SCORE_2" is taken by TEST_SCORE_2`},
		{"EUPC", `"EUPC" is taken by EU_PC`},
		{"TOTAL", `"TOTAL" is taken by LC`}, // the reference's key of LC
	} {
		if _, err := uq.RegisterPostHoc(tc.name); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("RegisterPostHoc(%q): error %v, want %q", tc.name, err, tc.want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("MustRegisterPostHoc of a taken name did not panic")
		}
	}()
	uq.MustRegisterPostHoc("GEBM")
}
