package scan

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLowerCamel(t *testing.T) {
	for in, want := range map[string]string{
		"SetTimeout": "setTimeout",
		"ID":         "id",
		"HTTPServer": "httpServer",
		"URL":        "url",
		"Err":        "err",
		"X":          "x",
		"already":    "already",
		"IDs":        "ids",
		"URLsSeen":   "urLsSeen", // an initialism inside a name: tag it with json:"urlsSeen"
		"ÄBC":        "äbc",
	} {
		if got := lowerCamel(in); got != want {
			t.Errorf("lowerCamel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseJSONTag(t *testing.T) {
	for tag, want := range map[string]jsonTag{
		``:                          {},
		`json:"-"`:                  {skip: true},
		`json:"-,"`:                 {name: "-"},
		`json:"name"`:               {name: "name"},
		`json:"name,omitempty"`:     {name: "name", omitempty: true},
		`json:",omitzero"`:          {omitempty: true},
		`yaml:"x" json:"y,string"`:  {name: "y"},
		`json:"a,string,omitempty"`: {name: "a", omitempty: true},
	} {
		if diff := cmp.Diff(want, parseJSONTag(tag), cmp.AllowUnexported(jsonTag{})); diff != "" {
			t.Errorf("parseJSONTag(%q) (-want +got):\n%s", tag, diff)
		}
	}
}

func TestJSQuote(t *testing.T) {
	if got := jsQuote(`it's a \ "test"` + "\n"); got != `'it\'s a \\ "test"\n'` {
		t.Errorf("jsQuote = %s", got)
	}
}

func TestWildcard(t *testing.T) {
	for _, tc := range []struct {
		pat, path string
		want      bool
	}{
		{"example.com/x/...", "example.com/x", true},
		{"example.com/x/...", "example.com/x/y/z", true},
		{"example.com/x/...", "example.com/xy", false},
		{"/repo/kit", "/repo/kit", true},
		{"/repo/kit", "/repo/kit/toolset", false},
		{"/repo/...", "/repo/kit", true},
		{"example.com/.../api", "example.com/a/b/api", true},
	} {
		if got := wildcard(tc.pat).MatchString(tc.path); got != tc.want {
			t.Errorf("wildcard(%q).Match(%q) = %v", tc.pat, tc.path, got)
		}
	}
}

func TestDiagnostics(t *testing.T) {
	ds := Diagnostics{
		{Path: "/m/b.go", Line: 2, Col: 1, Rule: RuleDoc, Message: "x"},
		{Path: "/m/a.go", Line: 10, Col: 1, Rule: RuleDoc, Message: "x"},
		{Path: "/m/a.go", Line: 9, Col: 5, Rule: RuleName, Message: "y"},
		{Path: "/m/a.go", Line: 9, Col: 5, Rule: RuleName, Message: "y"},
		{Path: "example.com/p", Rule: RuleLoad, Message: "no Go files"},
	}
	want := "a.go:9:5: [name] y\na.go:10:1: [doc] x\nb.go:2:1: [doc] x\nexample.com/p: [load] no Go files"
	if got := ds.Rel("/m").Error(); got != want {
		t.Errorf("Rel(/m) =\n%s\nwant\n%s", got, want)
	}
	if (Diagnostics{}).Err() != nil {
		t.Error("empty Diagnostics is an error")
	}
}
